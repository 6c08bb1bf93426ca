import { jsonBody, requestBody } from '../http/body.ts';
import { always, forbidden, issues, json, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { TagCategory } from '../kernel/shapes.ts';
import { z } from '../util/zod.ts';
import type { TagGovernance } from './governance.ts';
import { CategoryBody, GovernedNames } from './schemas.ts';
import { govern } from './tag-routes.ts';

/** docs/decisions.md §19: a tag's category, set by a holder of 0x1000; a tag nobody has used yet is created. */
export const tagCategoriesFeature: Feature<{ tagGovernance: TagGovernance }> = {
  name: 'tag-categories',
  endpoints: [
    {
      method: 'put',
      path: '/api/tag/{name}/category',
      operationId: 'putTagCategory',
      tag: 'tags',
      auth: true,
      summary: "Set a tag's category; a tag nobody has used yet is created, an alias means its target (needs 0x1000)",
      request: {
        params: z.object({ name: z.string().openapi({ description: 'the exact tag name, percent-encoded' }) }),
        body: { required: true, ...json(CategoryBody) },
      },
      responses: {
        ...always,
        200: {
          description: 'the tag',
          schema: z
            .object({ id: z.number().int(), name: z.string(), count: z.number().int().min(0), category: TagCategory })
            .strict(),
        },
        400: issues('not a category, or not a tag name'),
        403: forbidden,
      },
      handle: ({ tagGovernance }) => [
        govern,
        jsonBody(),
        (ctx) => {
          const { name } = parse(GovernedNames, ctx.params);
          const { category } = parse(CategoryBody, requestBody(ctx));
          ctx.body = tagGovernance.setCategory(name, category);
        },
      ],
    },
  ],
};
