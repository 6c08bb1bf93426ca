/** `/favorites`: the caller's favorites, newest favorite first (GET /api/account/favorites). */
import { api, ok } from '../api.ts';
import { h, main, pageHeading, replace } from '../dom.ts';
import { currentPage, pager } from '../grid.ts';
import { hidingGrid, postCells } from '../hiding-grid.ts';
import { currentUser } from '../session.ts';
import { categoryLegend } from '../tag-colors.ts';

const PAGE_SIZE = 24;

export async function favoritesPage(): Promise<void> {
  const self = await currentUser();
  if (!self) {
    replace(
      main(),
      pageHeading('Favorites'),
      h('p', {}, h('a', { href: '/login?next=/favorites' }, 'Log in'), ' to keep favorites.'),
    );
    return;
  }
  const page = currentPage();
  const result = await ok(
    api.GET('/api/account/favorites', { params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } }),
  );
  // docs/decisions.md §18: blacklisted posts are left out, with a switch to show them.
  const shownGrid = await hidingGrid(result.data, {
    ...postCells,
    label: 'Favorites, newest first',
    empty: h('p', {}, 'No favorites yet: the ☆ button on a post keeps it here.'),
  });
  replace(
    main(),
    pageHeading('Favorites'),
    h('p', { class: 'count' }, `${result.count} ${result.count === 1 ? 'favorite' : 'favorites'}`),
    shownGrid,
    result.data.length ? categoryLegend() : null,
    pager(page, result.count, PAGE_SIZE, (n) => (n === 1 ? '/favorites' : `/favorites?page=${n}`)),
  );
}
