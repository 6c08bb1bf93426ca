import { User } from '../kernel/shapes.ts';
import { listQuery } from '../search/paging-params.ts';
import { z } from '../util/zod.ts';

/** docs/decisions.md §23: a wiki page's body is at most 50,000 characters (code points). */
export const MAX_WIKI = 50_000;

const codePointsAtMost = (max: number, what: string) => (s: string, ctx: z.RefinementCtx) => {
  if (Array.from(s).length > max)
    ctx.addIssue({
      code: 'too_big',
      maximum: max,
      type: 'string',
      inclusive: true,
      message: `${what} is at most ${max} characters`,
    });
};

const version = z.number().int().min(1);

/** `PUT /api/wiki/[tag]` */
export const WikiEdit = z
  .object({
    body: z.string().superRefine(codePointsAtMost(MAX_WIKI, 'a wiki page')),
    otherNames: z.array(z.string().trim().min(1).max(255)).max(100).optional(),
    version: version.optional().openapi({ description: 'when given, must be the current version, else 409' }),
  })
  .strict();

export const WikiRevert = z.object({ version }).strict();
export const WikiLock = z.object({ locked: z.boolean() }).strict();

export const WikiQuery = listQuery.extend({ query: z.string().trim().min(1).max(255).optional() });

export const WikiPage = z
  .object({
    tag: z.string(),
    body: z
      .string()
      .openapi({ description: 'wiki text: [[tag]], {{search}}, post #N and http(s) links; nothing else' }),
    otherNames: z.array(z.string()),
    locked: z.boolean(),
    version,
    updatedAt: z.string().datetime(),
    editor: z.union([User, z.null()]).openapi({ description: 'null once the account is deleted' }),
  })
  .strict()
  .openapi('WikiPage');
export type WikiPageView = z.infer<typeof WikiPage>;

export const WikiVersion = z
  .object({
    version,
    body: z.string(),
    otherNames: z.array(z.string()),
    createdAt: z.string().datetime(),
    editor: z.union([User, z.null()]),
  })
  .strict()
  .openapi('WikiVersion');
export type WikiVersionView = z.infer<typeof WikiVersion>;

export const WikiHistory = z.array(WikiVersion).openapi('WikiHistory', { description: 'newest first' });

export const WikiPageList = z
  .object({ count: z.number().int().min(0), data: z.array(WikiPage) })
  .strict()
  .openapi('WikiPageList');
