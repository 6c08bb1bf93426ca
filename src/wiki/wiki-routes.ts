import { PAGING_WORDS } from '../search/paging-params.ts';
import { PERMISSION, currentUser, hasPermission, requirePermission } from '../accounts/permissions.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import { always, documentedQuery, error, forbidden, issues, json, limited, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { WikiEdit, WikiHistory, WikiLock, WikiPage, WikiPageList, WikiQuery, WikiRevert } from './schemas.ts';
import type { WikiActor, WikiService } from './service.ts';

function actor(ctx: AppContext): WikiActor {
  const user = currentUser(ctx);
  return {
    id: user.id,
    mayEdit: hasPermission(user, PERMISSION.editPost),
    governs: hasPermission(user, PERMISSION.manageTags),
  };
}

const tagParam = z.object({ tag: z.string().openapi({ description: "a tag's name, or an alias of it" }) });
const noPage = error('no wiki page for this tag (an alias reads its target’s)');
const stale = error('`version` is not the current one; the message names the current version');

/** Tag wiki pages (docs/decisions.md §23): everyone reads; 0x4 writes; 0x1000 locks and writes locked pages. */
export const wikiFeature: Feature<{ wiki: WikiService }> = {
  name: 'wiki',
  endpoints: [
    {
      method: 'get',
      path: '/api/wiki',
      operationId: 'searchWiki',
      tag: 'tags',
      summary: 'Wiki pages whose title, other names or body contain the query, most recently changed first',
      request: {
        query: documentedQuery(WikiQuery, {
          query: 'text to look for; absent: every page',
          ...PAGING_WORDS,
        }),
      },
      responses: { ...always, 200: { description: 'a page of wiki pages', schema: WikiPageList }, 400: issues() },
      handle: ({ wiki }) => [
        (ctx) => {
          const { query, offset, limit } = parse(WikiQuery, ctx.query);
          ctx.body = wiki.search(query, offset, limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/wiki/{tag}',
      operationId: 'getWikiPage',
      tag: 'tags',
      summary: "A tag's wiki page",
      request: { params: tagParam },
      responses: { ...always, 200: { description: 'the page', schema: WikiPage }, 404: noPage },
      handle: ({ wiki }) => [
        (ctx) => {
          ctx.body = wiki.get(ctx.params.tag);
        },
      ],
    },
    {
      method: 'put',
      path: '/api/wiki/{tag}',
      operationId: 'putWikiPage',
      tag: 'tags',
      auth: true,
      summary: "Write a tag's wiki page (0x4; a locked page 0x1000), optimistically by `version`",
      request: { params: tagParam, body: { required: true, ...json(WikiEdit) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the page as written', schema: WikiPage },
        400: issues('a body over 50,000 characters, or not the schema'),
        403: error('no 0x4, or the page is locked and the caller lacks 0x1000'),
        404: error('no tag of this name (and no page kept for it)'),
        409: stale,
      },
      handle: ({ wiki }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        (ctx) => {
          ctx.body = wiki.put(actor(ctx), ctx.params.tag, parse(WikiEdit, requestBody(ctx)));
        },
      ],
    },
    {
      method: 'get',
      path: '/api/wiki/{tag}/history',
      operationId: 'wikiHistory',
      tag: 'tags',
      summary: "A wiki page's versions, newest first",
      request: { params: tagParam },
      responses: { ...always, 200: { description: 'its versions', schema: WikiHistory }, 404: noPage },
      handle: ({ wiki }) => [
        (ctx) => {
          ctx.body = wiki.history(ctx.params.tag);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/wiki/{tag}/revert',
      operationId: 'revertWikiPage',
      tag: 'tags',
      auth: true,
      summary: 'Make an earlier version the current text again, as a new version (0x4; a locked page 0x1000)',
      request: { params: tagParam, body: { required: true, ...json(WikiRevert) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the page as written', schema: WikiPage },
        400: issues(),
        403: error('no 0x4, or the page is locked and the caller lacks 0x1000'),
        404: error('no such page, or no such version of it'),
      },
      handle: ({ wiki }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        (ctx) => {
          ctx.body = wiki.revert(actor(ctx), ctx.params.tag, parse(WikiRevert, requestBody(ctx)).version);
        },
      ],
    },
    {
      method: 'put',
      path: '/api/wiki/{tag}/lock',
      operationId: 'lockWikiPage',
      tag: 'tags',
      auth: true,
      summary: 'Lock or unlock a wiki page (0x1000)',
      request: { params: tagParam, body: { required: true, ...json(WikiLock) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the page', schema: WikiPage },
        400: issues(),
        403: forbidden,
        404: noPage,
      },
      handle: ({ wiki }) => [
        requirePermission(PERMISSION.manageTags),
        jsonBody(),
        (ctx) => {
          ctx.body = wiki.lock(actor(ctx), ctx.params.tag, parse(WikiLock, requestBody(ctx)).locked);
        },
      ],
    },
  ],
};
