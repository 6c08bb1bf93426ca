/** `/`: the newest posts as a grid, paged (GET /api/post/). */
import { api, ok } from '../api.ts';
import { h, main, pageHeading, replace } from '../dom.ts';
import { currentPage, pager } from '../grid.ts';
import { hidingGrid, postCells } from '../hiding-grid.ts';
import { categoryLegend } from '../tag-colors.ts';
import { applyRatings, visibleRatings } from '../preferences.ts';

const PAGE_SIZE = 24;

export async function homePage(): Promise<void> {
  const page = currentPage();
  const result = await ok(
    api.GET('/api/post/', { params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } }),
  );
  // Safe browsing: only the ratings the person chose (docs/decisions.md §14); the page says how many it left out.
  const { shown, hidden } = applyRatings(result.data, await visibleRatings());
  // docs/decisions.md §18: blacklisted posts are left out too, with a switch to show them.
  const shownGrid = await hidingGrid(shown, {
    ...postCells,
    label: 'Posts, newest first',
    empty: h('p', {}, 'No posts yet. ', h('a', { href: '/upload' }, 'Upload the first one.')),
  });
  replace(
    main(),
    pageHeading(page > 1 ? `Newest posts, page ${page}` : 'Newest posts'),
    h(
      'p',
      { class: 'count' },
      `${result.count} ${result.count === 1 ? 'post' : 'posts'}`,
      hidden ? ` · ${hidden} on this page hidden by your ` : '',
      hidden ? h('a', { href: '/account' }, 'safe-browsing preferences') : '',
    ),
    shownGrid,
    shown.length ? categoryLegend() : null,
    pager(page, result.count, PAGE_SIZE, (n) => (n === 1 ? '/' : `/?page=${n}`)),
  );
}
