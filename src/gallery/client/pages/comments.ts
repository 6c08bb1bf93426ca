/** `/comments`: the newest comments site-wide, or one author's (`?author=`), paged (docs/decisions.md §18). */
import { api, ok } from '../api.ts';
import { commentItem } from '../comment-item.ts';
import { h, main, pageHeading, replace } from '../dom.ts';
import { currentPage, pager } from '../grid.ts';
import { currentUser } from '../session.ts';

const PAGE_SIZE = 50;

export async function commentsPage(): Promise<void> {
  const author = new URLSearchParams(location.search).get('author')?.trim() || undefined;
  const page = currentPage();
  const [self, result] = await Promise.all([
    currentUser().catch(() => undefined),
    ok(
      api.GET('/api/comment', {
        params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE, ...(author ? { author } : {}) } },
      }),
    ),
  ]);
  const base = author ? `/comments?author=${encodeURIComponent(author)}` : '/comments';
  replace(
    main(),
    pageHeading(author ? `Comments by ${author}` : 'Recent comments'),
    h(
      'p',
      { class: 'count' },
      `${result.count} ${result.count === 1 ? 'comment' : 'comments'}`,
      author ? [' · ', h('a', { href: '/comments' }, 'everyone’s')] : null,
    ),
    result.data.length
      ? h(
          'ol',
          { class: 'comments', 'aria-label': 'Comments, newest first' },
          result.data.map((c) => commentItem(c, { self, showPost: true })),
        )
      : h('p', {}, 'No comments yet.'),
    pager(page, result.count, PAGE_SIZE, (n) => (n === 1 ? base : `${base}${author ? '&' : '?'}page=${n}`)),
  );
}
