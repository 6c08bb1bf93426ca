import type { Config } from '../config.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { FavoriteRepository } from './favorite-repository.ts';
import { toImageSearchImage } from '../kernel/views.ts';
import { MAX_IMAGE_LIMIT } from '../search/image-search/schemas.ts';
import type { ImageSearchResult, ImageSearchService } from '../search/image-search/service.ts';

/**
 * `POST /image/quick-search` (docs/decisions.md §14), as the original has it: a person types a few letters
 * and gets their own favorites whose shortcut starts with them first (case-insensitive, shortest
 * shortcut first), then the `textMatch` results for the same letters, without repeats. One page
 * of `/image/search`'s size.
 */
export class QuickSearch {
  constructor(
    private readonly deps: {
      postRepository: PostRepository;
      favorites: Pick<FavoriteRepository, 'byShortcutPrefix'>;
      imageSearch: ImageSearchService;
      config: Pick<Config, 'mediaUrl'>;
    },
  ) {}

  async search(userId: number, q: string): Promise<ImageSearchResult> {
    const { postRepository: posts, imageSearch, config } = this.deps;
    const favorites = posts.getManyBySeq(this.deps.favorites.byShortcutPrefix(userId, q, MAX_IMAGE_LIMIT));
    const matched = await imageSearch.search(
      { conditions: [{ type: 'textMatch', value: q }], orderBy: 'relevance', order: 'desc' },
      { offset: 0, limit: MAX_IMAGE_LIMIT },
    );
    const first = new Set(favorites.map((p) => p.seq));
    const rest = matched.images.filter((image) => !first.has(image.id));
    const repeats = matched.images.length - rest.length;
    const images = [...favorites.map((p) => toImageSearchImage(p, config.mediaUrl)), ...rest].slice(0, MAX_IMAGE_LIMIT);
    return { total: favorites.length + matched.total - repeats, images };
  }
}
