/**
 * `/upload`: a picture (picker or drop), text, tags with suggestions and a rating, sent as the
 * multipart POST /api/post/. On 409 the near-duplicates are shown as thumbnails, with "Upload
 * anyway" (force=1). When a picture is chosen, its robust matches (docs/decisions.md §16: crops, borders,
 * captions of posts already here, which the 409 does not catch) are shown as "possible duplicates"
 * before anything is sent.
 */
import { api, ApiError, errorText, ok, PERMISSION, can, thumbnailOf, type Schemas } from '../api.ts';
import { h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { dropZone } from '../drop.ts';
import { grid } from '../grid.ts';
import { currentUser } from '../session.ts';
import { findPossibleDuplicates, robustGrid, similarGrid } from '../similar-list.ts';
import { postFields } from './post-edit.ts';

type Duplicates = Schemas['DuplicateMatches'];

/** A possible-duplicates lookup refused as busy is tried once more after this long. */
const LOOKUP_RETRY_MS = 2_000;

export async function uploadPage(): Promise<void> {
  const self = await currentUser();
  if (!self) {
    replace(
      main(),
      pageHeading('Upload'),
      h('p', {}, h('a', { href: '/login?next=/upload' }, 'Log in'), ' to upload pictures.'),
    );
    return;
  }
  if (!can(self, PERMISSION.create)) {
    replace(
      main(),
      pageHeading('Upload'),
      h('p', { class: 'error', role: 'alert' }, 'Your account does not have permission to upload.'),
    );
    return;
  }
  const msg = messageBox();
  const drop = dropZone('image', 'Picture (JPEG, PNG, GIF, WebP or AVIF), animation or video (WebM, MP4)');
  const fields = postFields('', 3);
  const duplicates = h('section', { class: 'duplicates', 'aria-live': 'polite' });
  const possible = h('section', { class: 'possible-duplicates', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Upload');
  const form = h('form', { class: 'stack' }, drop.el, fields.nodes, submit, msg.el, duplicates, possible);
  // Only the answer for the picture chosen last is shown.
  let chosen = 0;
  drop.onChange(() => {
    duplicates.replaceChildren();
    possible.replaceChildren();
    delete possible.dataset.lookup;
    msg.clear();
    const file = drop.file();
    if (file) void showPossibleDuplicates(file, ++chosen);
  });

  async function showPossibleDuplicates(file: File, turn: number): Promise<void> {
    try {
      // A video is looked up by its poster frame (the server reads a moving picture's frames too, but
      // a video is larger than the lookup's body cap).
      const poster = await drop.poster();
      const lookup = () => findPossibleDuplicates(poster ?? file, poster ? 'poster.png' : file.name);
      // A busy server refuses a lookup with 503 (its image pool is full); one more try a moment later.
      const { similar, robust } = await lookup().catch(async (err: unknown) => {
        if (!(err instanceof ApiError && err.status === 503)) throw err;
        await new Promise((resolve) => setTimeout(resolve, LOOKUP_RETRY_MS));
        return lookup();
      });
      if (turn !== chosen) return;
      possible.dataset.lookup = similar.length || robust.length ? 'found' : 'none';
      if (!similar.length && !robust.length) return;
      replace(
        possible,
        h('h2', {}, 'Possible duplicates'),
        h(
          'p',
          {},
          'These posts may show the same picture (perhaps cropped, framed or captioned). You can still upload.',
        ),
        similar.length ? similarGrid(similar, 'Near-duplicates by the image hash') : null,
        robust.length ? robustGrid(robust, 'Possible duplicates') : null,
      );
    } catch (err) {
      // A hint only: the upload itself reports real problems. How the lookup ended is kept on the
      // section (data-lookup: found, none, or why it failed) for whoever inspects the page, not shown.
      if (turn === chosen) possible.dataset.lookup = `failed: ${errorText(err)}`;
    }
  }

  const send = async (force: boolean) => {
    const file = drop.file();
    if (!file) {
      msg.error('Choose a picture first.');
      drop.input.focus();
      return;
    }
    duplicates.replaceChildren();
    msg.info('Uploading…');
    submit.disabled = true;
    try {
      const body = { image: file.name, metadata: fields.values(), force: force ? ('1' as const) : undefined };
      const created = await ok(
        api.POST('/api/post/', {
          body,
          bodySerializer: (b) => {
            const f = new FormData();
            f.append('image', file);
            f.append('metadata', new Blob([JSON.stringify(b.metadata)], { type: 'application/json' }));
            if (b.force) f.append('force', b.force);
            return f;
          },
        }),
      );
      location.assign(`/post/${created.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && Array.isArray(err.body))
        showDuplicates(err.body as Duplicates);
      else msg.error(errorText(err));
    } finally {
      submit.disabled = false;
    }
  };

  function showDuplicates(matches: Duplicates): void {
    // The refusal lists the near-duplicates itself; the hint before sending would repeat them.
    possible.replaceChildren();
    msg.error(
      `This picture looks like ${matches.length === 1 ? 'a post that is' : `${matches.length} posts that are`} already here.`,
    );
    const anyway = h('button', { type: 'button', id: 'upload-anyway' }, 'Upload anyway');
    anyway.addEventListener('click', () => void send(true));
    replace(
      duplicates,
      h('h2', {}, 'Near-duplicates'),
      grid(
        matches.map((m) => ({
          href: `/post/${m.id}`,
          thumbnail: thumbnailOf(m.imageURL, m.id),
          alt: `Existing post ${m.id.slice(0, 8)}`,
        })),
        'Near-duplicates',
      ),
      h('p', {}, anyway, ' ', h('small', {}, 'if this is really a different picture.')),
    );
    anyway.focus();
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void send(false);
  });
  replace(main(), pageHeading('Upload'), form);
}
