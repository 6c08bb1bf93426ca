/** The gallery's entry: renders the page for the address (docs/decisions.md §12) into <main>. */
import { errorText } from './api.ts';
import { h, main, replace } from './dom.ts';
import { renderAccountNav } from './session.ts';
import { attachTagSuggestions } from './suggest.ts';
import { accountPage } from './pages/account.ts';
import { homePage } from './pages/home.ts';
import { loginPage } from './pages/login.ts';
import { moderationPage } from './pages/moderation.ts';
import { postPage } from './pages/post.ts';
import { searchPage } from './pages/search.ts';
import { similarPage } from './pages/similar.ts';
import { tagPage } from './pages/tag.ts';
import { uploadPage } from './pages/upload.ts';
import { signupPage } from './pages/signup.ts';
import { favoritesPage } from './pages/favorites.ts';
import { adminUsersPage } from './pages/admin-users.ts';
import { commentsPage } from './pages/comments.ts';
import { poolPage } from './pages/pool.ts';
import { poolsPage } from './pages/pools.ts';
import { wikiPage } from './pages/wiki.ts';

function route(path: string): (() => Promise<void>) | undefined {
  const post = /^\/post\/([^/]+)$/.exec(path);
  if (post) return () => postPage(decodeURIComponent(post[1]));
  const tag = /^\/tag\/([^/]+)$/.exec(path);
  if (tag) return () => tagPage(decodeURIComponent(tag[1]));
  const wiki = /^\/wiki\/([^/]+)$/.exec(path);
  if (wiki) return () => wikiPage(decodeURIComponent(wiki[1]));
  const pool = /^\/pool\/([^/]+)$/.exec(path);
  if (pool) return () => poolPage(decodeURIComponent(pool[1]));
  const pages: Record<string, () => Promise<void>> = {
    '/': homePage,
    '/search': searchPage,
    '/upload': uploadPage,
    '/similar': similarPage,
    '/login': loginPage,
    '/account': accountPage,
    '/moderation': moderationPage,
    '/signup': signupPage,
    '/favorites': favoritesPage,
    '/admin/users': adminUsersPage,
    '/comments': commentsPage,
    '/pools': poolsPage,
  };
  return pages[path];
}

async function start(): Promise<void> {
  const q = document.getElementById('q') as HTMLInputElement | null;
  const list = document.getElementById('q-suggestions') as HTMLUListElement | null;
  if (q && list) attachTagSuggestions(q, list, { signs: true });
  void renderAccountNav();
  const page = route(location.pathname);
  try {
    if (!page) replace(main(), h('h1', {}, 'Not found'), h('p', {}, 'There is no page at this address.'));
    else await page();
  } catch (err) {
    replace(main(), h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, errorText(err)));
  }
  document.body.dataset.ready = '1';
}

void start();
