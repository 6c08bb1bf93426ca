import Router from '@koa/router';
import { currentUser, PERMISSION, requirePermission } from '../accounts/permissions.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import type { TagGovernance } from './governance.ts';
import { AliasBody, AliasListQuery, CategoryBody, GovernedNames, TagListQuery } from './schemas.ts';
import type { TagService } from './service.ts';

/**
 * GET /api/tag (prefix autocomplete) and GET /api/tag/[name], both public (docs/decisions.md §10); the
 * vocabulary's governance (docs/decisions.md §15): aliases and implications, changed with 0x1000.
 */
export function tagRoutes(deps: { tags: TagService; tagGovernance: TagGovernance }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/tag' });
  const govern = requirePermission(PERMISSION.manageTags);
  const by = (ctx: AppContext) => {
    const user = currentUser(ctx);
    return { id: user.id, name: user.name };
  };

  router.get('/', (ctx) => {
    const q = parse(TagListQuery, ctx.query);
    ctx.body = deps.tags.list(q.prefix, q.offset, q.limit);
  });

  // Before '/:name': "alias" names this list, not a tag.
  router.get('/alias', (ctx) => {
    const q = parse(AliasListQuery, ctx.query);
    ctx.body = deps.tagGovernance.listAliases(q.offset, q.limit);
  });

  router.get('/:name', (ctx) => {
    ctx.body = { ...deps.tags.get(ctx.params.name), ...deps.tagGovernance.describe(ctx.params.name) };
  });

  router.put('/:name/alias', govern, jsonBody(), (ctx) => {
    const { name } = parse(GovernedNames, ctx.params);
    const { target } = parse(AliasBody, requestBody(ctx));
    ctx.body = deps.tagGovernance.putAlias(name, target, by(ctx));
  });

  router.delete('/:name/alias', govern, (ctx) => {
    deps.tagGovernance.deleteAlias(ctx.params.name);
    ctx.status = 204;
  });

  // docs/decisions.md §19: the tag's category; a tag nobody has used yet is created.
  router.put('/:name/category', govern, jsonBody(), (ctx) => {
    const { name } = parse(GovernedNames, ctx.params);
    const { category } = parse(CategoryBody, requestBody(ctx));
    ctx.body = deps.tagGovernance.setCategory(name, category);
  });

  router.put('/:name/implies/:other', govern, (ctx) => {
    const { name, other } = parse(GovernedNames, ctx.params);
    ctx.body = deps.tagGovernance.putImplication(name, other!, by(ctx));
  });

  router.delete('/:name/implies/:other', govern, (ctx) => {
    deps.tagGovernance.deleteImplication(ctx.params.name, ctx.params.other);
    ctx.status = 204;
  });

  return router;
}
