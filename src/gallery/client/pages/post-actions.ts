/**
 * The post page's buttons for everybody: favorite (docs/decisions.md §14; a toggle with aria-pressed and
 * the count), votes (§18: up and down toggles around the score) and copy the image (Clipboard API:
 * browsers take PNG, so the picture is redrawn as one).
 */
import { api, ApiError, errorText, ok, type Post, type Self } from '../api.ts';
import { h, messageBox } from '../dom.ts';
import { voteButtons } from '../votes.ts';

/** Whether the caller's favorites hold the post (the Post carries the count only). */
async function isFavorite(postId: string): Promise<boolean> {
  const page = await ok(api.GET('/api/account/favorites', { params: { query: { offset: 0, limit: 1000 } } }));
  return page.data.some((p) => p.id === postId);
}

function favoriteButton(post: Post, self: Self | undefined, msg: ReturnType<typeof messageBox>): HTMLElement {
  let count = post.favorites;
  let on = false;
  const button = h('button', { type: 'button', id: 'favorite', class: 'secondary', 'aria-pressed': 'false' });
  const draw = () => {
    button.textContent = `${on ? '★ Favorited' : '☆ Favorite'} (${count})`;
    button.setAttribute('aria-pressed', String(on));
  };
  draw();
  if (!self) {
    button.addEventListener('click', () => location.assign(`/login?next=${encodeURIComponent(location.pathname)}`));
    return button;
  }
  void isFavorite(post.id).then(
    (fav) => {
      on = fav;
      draw();
    },
    () => {},
  );
  button.addEventListener('click', async () => {
    button.setAttribute('aria-busy', 'true');
    try {
      const path = { params: { path: { id: post.id } } };
      await ok(on ? api.DELETE('/api/post/{id}/favorite', path) : api.PUT('/api/post/{id}/favorite', path));
      on = !on;
      count += on ? 1 : -1;
      draw();
      msg.info(on ? 'Added to your favorites.' : 'Removed from your favorites.');
    } catch (err) {
      msg.error(errorText(err));
    } finally {
      button.removeAttribute('aria-busy');
    }
  });
  return button;
}

async function pngOf(url: string): Promise<Blob> {
  const res = await fetch(url);
  if (!res.ok) throw new ApiError(res.status, `The image could not be loaded (status ${res.status}).`);
  const bitmap = await createImageBitmap(await res.blob());
  const canvas = document.createElement('canvas');
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('could not encode the image'))), 'image/png'),
  );
}

function copyImageButton(post: Post, msg: ReturnType<typeof messageBox>): HTMLElement | null {
  if (typeof ClipboardItem === 'undefined' || !navigator.clipboard?.write) return null;
  const button = h('button', { type: 'button', id: 'copy-image', class: 'secondary' }, 'Copy image');
  button.addEventListener('click', async () => {
    try {
      // The promise goes in at once: Safari allows the write only within the click.
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': pngOf(post.imageURL) })]);
      msg.info('Image copied.');
    } catch (err) {
      msg.error(err instanceof ApiError ? err.message : 'The browser did not allow copying the image.');
    }
  });
  return button;
}

export function postActions(post: Post, self: Self | undefined): HTMLElement {
  const msg = messageBox();
  return h(
    'div',
    { class: 'post-actions' },
    voteButtons(post, self, msg),
    h('p', { class: 'actions' }, favoriteButton(post, self, msg), ' ', copyImageButton(post, msg)),
    msg.el,
  );
}
