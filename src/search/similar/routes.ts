import Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../roles/server.ts';
import { invalid } from '../../errors.ts';
import type { AppState } from '../../http/context.ts';
import { parse, queryInt } from '../../http/validate.ts';
import { imageName, imageUrl } from '../../kernel/media-names.ts';
import { multipart, partsOf } from '../../upload/multipart.ts';
import { findWithin, findWithinDihedral, MAX_DIFF, type SimilarMatch, type TransformedMatch } from './find-similar.ts';

type Deps = Pick<Services, 'postsIndex' | 'postRepository' | 'hashPool' | 'config'> & { tmpDir: string };

export const query = z.object({
  maxDiff: queryInt({ min: 0, max: MAX_DIFF, default: 8 }),
  limit: queryInt({ min: 1, max: 100, default: 24 }),
  /** decisions §11: also mirrored and rotated copies */
  transforms: z.enum(['dihedral']).optional(),
});

/** POST /api/post/similar (spec §4.10, decisions §5). Public. */
export function similarRoutes(deps: Deps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/api/post/similar', multipart(deps.tmpDir, ['image']), async (ctx) => {
    const { maxDiff, limit, transforms } = parse(query, ctx.query);
    const file = partsOf(ctx).files.image;
    if (!file) throw invalid(['image'], 'the image part is required', 'invalid_type', 'file', 'undefined');
    const dihedral = transforms === 'dihedral';
    const info = await deps.hashPool.analyse(file.path, { dihedral });
    const found: (SimilarMatch | TransformedMatch)[] = dihedral
      ? await findWithinDihedral(deps.postsIndex, info.dihedral!, maxDiff)
      : await findWithin(deps.postsIndex, info.hash, maxDiff);
    const matches = found.slice(0, limit);
    const posts = new Map(deps.postRepository.getManyById(matches.map((m) => m.id)).map((p) => [p.id, p]));
    const similar = matches.flatMap((m) => {
      const p = posts.get(m.id);
      if (!p) return [];
      const image = imageName(p);
      const item = { id: p.id, image, imageURL: imageUrl(deps.config.mediaUrl, p), diff: m.diff };
      return ['transform' in m ? { ...item, transform: m.transform } : item];
    });
    ctx.body = { hash: info.hash, similar };
  });
  return router;
}
