import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import { always, documentedQuery, error, forbidden, issues, json, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { UserPage, UserSummary } from './account-routes.ts';
import { currentUser } from './permissions.ts';
import { userListQuery, userPatchSchema } from './schemas.ts';
import type { UserAdmin } from './user-admin.ts';

// A malformed id finds no user: 404 (docs/decisions.md §3), never 500.
const userIdOf = (ctx: AppContext): number =>
  /^[1-9]\d{0,15}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : NaN;
const userId = z.object({ id: z.string().openapi({ description: 'the user id' }) });
const noUser = error('no user with this id');
const lastSuperUser = error('the last super user cannot be demoted or deleted');

/** The user admin API (docs/decisions.md §14); each operation checks its bit in UserAdmin. */
export const userAdminFeature: Feature<{ userAdmin: UserAdmin }> = {
  name: 'user-admin',
  endpoints: [
    {
      method: 'get',
      path: '/api/user',
      operationId: 'listUsers',
      tag: 'accounts',
      auth: true,
      summary: 'Accounts whose name starts with prefix (needs 0x100)',
      request: {
        query: documentedQuery(userListQuery, {
          prefix: 'name prefix, any case',
          offset: 'results to skip',
          limit: 'page size; above 200 lowered to 200',
        }),
      },
      responses: {
        ...always,
        200: { description: 'a page of users', schema: UserPage },
        400: issues(),
        403: forbidden,
      },
      handle: ({ userAdmin }) => [
        (ctx) => {
          const caller = currentUser(ctx);
          const q = parse(userListQuery, ctx.query);
          ctx.body = userAdmin.list(caller, q.prefix, q.offset, q.limit);
        },
      ],
    },
    {
      method: 'patch',
      path: '/api/user/{id}',
      operationId: 'updateUser',
      tag: 'accounts',
      auth: true,
      summary:
        "Change a user's name or email (0x200 for another's) or permission (0x800; only bits the caller holds, 0x1 only by a super user)",
      request: { params: userId, body: { required: true, ...json(userPatchSchema) } },
      responses: {
        ...always,
        200: { description: 'the user', schema: UserSummary },
        400: issues(),
        403: forbidden,
        404: noUser,
        409: error('the name is taken, or the last super user would lose the bit'),
      },
      handle: ({ userAdmin }) => [
        jsonBody(),
        (ctx) => {
          const caller = currentUser(ctx);
          ctx.body = userAdmin.patch(caller, userIdOf(ctx), parse(userPatchSchema, requestBody(ctx)));
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/user/{id}',
      operationId: 'deleteUser',
      tag: 'accounts',
      auth: true,
      summary: 'Delete a user (0x400): their posts stay, disowned; their keys, favorites and webhooks go',
      request: { params: userId },
      responses: { ...always, 204: { description: 'deleted' }, 403: forbidden, 404: noUser, 409: lastSuperUser },
      handle: ({ userAdmin }) => [
        (ctx) => {
          const caller = currentUser(ctx);
          userAdmin.remove(caller, userIdOf(ctx));
          ctx.status = 204;
        },
      ],
    },
  ],
};
