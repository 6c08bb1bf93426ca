import { User } from '../kernel/shapes.ts';
import { z } from '../util/zod.ts';

/** docs/decisions.md §23: a note's body is 1 to 10,000 characters (code points) after trimming. */
export const MAX_NOTE = 10_000;

const noteBody = z
  .string()
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, 'a note must not be empty')
      .superRefine((s, ctx) => {
        if (Array.from(s).length > MAX_NOTE)
          ctx.addIssue({
            code: 'too_big',
            maximum: MAX_NOTE,
            type: 'string',
            inclusive: true,
            message: `a note is at most ${MAX_NOTE} characters`,
          });
      }),
  )
  .openapi({ type: 'string', description: `trimmed, then 1 to ${MAX_NOTE} characters (code points)` });

const px = z.number().int().min(0).max(1_000_000);
const size = z.number().int().min(1).max(1_000_000);
const version = z.number().int().min(1);

/** `POST /api/post/[id]/note`: a box in the image's pixels, which must lie inside it. */
export const NewNote = z.object({ x: px, y: px, width: size, height: size, body: noteBody }).strict();

/** `PATCH /api/note/[id]`: any of them; `version`, when given, must be the current one. */
export const NoteChange = z
  .object({
    x: px.optional(),
    y: px.optional(),
    width: size.optional(),
    height: size.optional(),
    body: noteBody.optional(),
    version: version.optional(),
  })
  .strict();

export const NoteRevert = z.object({ version }).strict();

/** Note ids are positive integers; anything else names no note (404). */
export const NOTE_ID = /^[1-9]\d{0,15}$/;

export const Note = z
  .object({
    id: z.number().int().min(1),
    postId: z.string().uuid(),
    x: z.number().int(),
    y: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    body: z.string().openapi({ description: 'plain text, rendered as comments are (docs/decisions.md §18)' }),
    version,
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    author: z.union([User, z.null()]).openapi({ description: 'null once the account is deleted' }),
  })
  .strict()
  .openapi('Note');
export type NoteView = z.infer<typeof Note>;

export const NoteList = z.array(Note).openapi('NoteList', { description: 'oldest first' });

export const NoteVersion = z
  .object({
    version,
    x: z.number().int(),
    y: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    body: z.string(),
    createdAt: z.string().datetime(),
    editor: z.union([User, z.null()]),
  })
  .strict()
  .openapi('NoteVersion');
export type NoteVersionView = z.infer<typeof NoteVersion>;
export const NoteHistory = z.array(NoteVersion).openapi('NoteHistory', { description: 'newest first' });
