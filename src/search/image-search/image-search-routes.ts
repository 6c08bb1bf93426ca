import { RATINGS } from '../../kernel/post-record.ts';
import {
  bodyFields as ImageSearchBody,
  MAX_CONDITIONS,
  MAX_MATCH_LENGTH,
  query as ImageSearchQuery,
  parseImageSearch,
  RATING_ALIASES,
} from './schemas.ts';
import { always, documentedQuery, error, json, searchDown, type Feature } from '../../http/endpoint.ts';
import { z } from '../../util/zod.ts';
import { jsonBody, requestBody } from '../../http/body.ts';
import { messageErrors } from '../../http/errors.ts';
import { fastParseImageSearch } from './fast-parse.ts';
import { ImageSearchResult } from './result-shapes.ts';
import type { ImageSearchService } from './service.ts';
/** `POST /image/search`, the original client's full-text image search (docs/decisions.md §5, §18, §19, §20). */

/** `/image/search` conditions with each type's rule on its value (the route checks them in one schema). */
const caseless = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c}]`).join('');
const nonBlank = z.string().regex(/\S/u).openapi({ description: 'trimmed; must not be empty' });
const ImageSearchCondition = z.union([
  z.object({
    type: z.enum([
      'tagInclude',
      'tagExclude',
      'tagAny',
      'textContains',
      'uploadedBy',
      'favoritedBy',
      'sourceContains',
      'commentedBy',
      'originSite',
    ]),
    value: nonBlank,
  }),
  // docs/decisions.md §20: a search in one of two spellings, parsed on the server into the one query model
  z.object({
    type: z.literal('query'),
    value: nonBlank.openapi({
      description:
        'a search: in the Danbooru spelling (cat -dog ~fox rating:g; its order: is ignored here), or in the ' +
        'gallery\'s (words, "a phrase", +tag, -tag, ~tag, rating:none|moderate|violent, by:name, ' +
        'sort:new|old|relevance|score|comments); an unknown term is 400 naming it',
    }),
    spelling: z
      .enum(['danbooru', 'gallery'])
      .optional()
      .openapi({
        description:
          "danbooru (the default) or gallery; a gallery spelling's sort: orders the results when orderBy is " +
          'absent (without sort:, relevance when it has words, else uploadDate)',
      }),
  }),
  // docs/decisions.md §18: bounds on the score (upvotes - downvotes)
  z.object({
    type: z.enum(['scoreGte', 'scoreLte']),
    value: z
      .string()
      .regex(/^\s*[+-]?\d{1,9}\s*$/u)
      .openapi({ description: 'an integer (decimal digits, optional sign, at most 9 digits)' }),
  }),
  // docs/decisions.md §19
  z.object({
    type: z.literal('pool'),
    value: z
      .string()
      .regex(/^\s*[1-9]\d{0,15}\s*$/u)
      .openapi({ description: 'a pool id' }),
  }),
  z.object({
    type: z.literal('childOf'),
    value: z
      .string()
      .regex(/^\s*(?:[1-9]\d{0,15}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\s*$/u)
      .openapi({ description: "the parent post's number or UUID" }),
  }),
  z.object({
    type: z.literal('ratingEq'),
    value: z
      .string()
      .regex(new RegExp(`^\\s*(?:${[...RATINGS, ...RATING_ALIASES.keys()].map(caseless).join('|')})\\s*$`, 'u'))
      .openapi({ description: 'a rating, any case (violet is violent)' }),
  }),
  z.object({
    type: z.literal('textMatch'),
    value: nonBlank.openapi({ description: `trimmed; 1 to ${MAX_MATCH_LENGTH} characters (UTF-16 code units)` }),
  }),
  // docs/decisions.md §21: moving pictures
  z.object({
    type: z.literal('mediaKind'),
    value: z
      .string()
      .regex(
        /^\s*(?:[Ii][Mm][Aa][Gg][Ee]|[Aa][Nn][Ii][Mm][Aa][Tt][Ii][Oo][Nn]|[Vv][Ii][Dd][Ee][Oo])(?:,(?:[Ii][Mm][Aa][Gg][Ee]|[Aa][Nn][Ii][Mm][Aa][Tt][Ii][Oo][Nn]|[Vv][Ii][Dd][Ee][Oo]))*\s*$/u,
      )
      .openapi({ description: 'image, animation or video, or a comma list of them (any case)' }),
  }),
  z.object({
    type: z.enum(['durationGte', 'durationLte']),
    value: z
      .string()
      .regex(/^\s*\d{1,9}(?:\.\d{1,6})?\s*$/u)
      .openapi({ description: 'seconds (at most 6 decimals); a still image has no duration and never matches' }),
  }),
  z.object({
    type: z.literal('hasAudio'),
    value: z
      .string()
      .regex(/^\s*(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\s*$/u)
      .openapi({ description: 'true or false (any case)' }),
  }),
  // docs/decisions.md §23
  z.object({
    type: z.literal('hasNotes'),
    value: z
      .string()
      .regex(new RegExp(`^\\s*(?:${caseless('true')}|${caseless('false')})\\s*$`, 'u'))
      .openapi({ description: 'true: posts with notes; false: posts without (any case)' }),
  }),
]);

/** POST /image/search (docs/decisions.md §7). Public. */
export const imageSearchFeature: Feature<{ imageSearch: ImageSearchService }> = {
  name: 'image-search',
  busy: true,
  endpoints: [
    {
      method: 'post',
      path: '/image/search',
      operationId: 'imageSearch',
      tag: 'search',
      summary: "Full-text image search (the original client's endpoint); errors are { error }",
      request: {
        query: documentedQuery(ImageSearchQuery, {
          offset: 'results to skip (int32)',
          limit: 'page size (int32); above 24 lowered to 24',
        }),
        body: {
          required: false,
          ...json(
            ImageSearchBody.extend({
              conditions: z
                .array(ImageSearchCondition)
                .max(MAX_CONDITIONS)
                .default([])
                .openapi({ description: 'all must hold' }),
              orderBy: ImageSearchBody.shape.orderBy.openapi({
                type: 'string',
                description:
                  'id, uploadDate, relevance, favorites, score or comments (the highest count first with order desc) ' +
                  'or pool (the order of the pool named by the one pool condition; 400 without exactly one); ' +
                  "anything else means uploadDate; absent, a gallery-spelled query's sort: decides, else uploadDate",
              }),
              order: ImageSearchBody.shape.order.openapi({
                type: 'string',
                description:
                  'asc or desc; anything else means desc, but asc under orderBy pool, and the direction of a ' +
                  "gallery-spelled query's sort: when orderBy is absent",
              }),
              facets: ImageSearchBody.shape.facets.openapi({
                uniqueItems: true,
                description: 'count tags, ratings and/or uploaders over the whole result (response `data.facets`)',
              }),
            }),
          ),
        },
      },
      responses: {
        ...always,
        ...searchDown,
        200: { description: 'a page of images; total is exact unless totalIsEstimate', schema: ImageSearchResult },
        400: error('invalid conditions or paging'),
      },
      // This endpoint answers every error as `{ error }` with the status, unlike the issue arrays elsewhere.
      before: [messageErrors()],
      handle: ({ imageSearch }) => [
        jsonBody(),
        async (ctx) => {
          const { request, offset, limit } =
            fastParseImageSearch(requestBody(ctx), ctx.query) ?? parseImageSearch(requestBody(ctx), ctx.query);
          ctx.body = { error: null, data: await imageSearch.search(request, { offset, limit }) };
        },
      ],
    },
  ],
};
