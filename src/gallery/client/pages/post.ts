/**
 * `/post/<id>`: the image, its text, tags (links to searches), rating, uploader and dates; similar
 * images including mirrored and rotated copies; possible duplicates (robust matches, docs/decisions.md §16); the
 * version history (revert for editors); the edit form for editors and delete for deleters (./post-edit.ts).
 */
import { api, ApiError, can, errorText, ok, PERMISSION, type Post, type Self } from '../api.ts';
import { formatDate, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentUser } from '../session.ts';
import {
  noMatches,
  postSimilar,
  robustGrid,
  similarGrid,
  type RobustMatch,
  type SimilarMatch,
} from '../similar-list.ts';
import { deleteControl, editForm } from './post-edit.ts';
import { historySection } from './post-history.ts';
import { addMergeButtons, deletionRequestForm } from './post-moderation.ts';
import { postActions } from './post-actions.ts';
import { commentsSection } from './post-comments.ts';
import { childrenSection, originValue, parentValue, poolsSection, sourceValue } from './post-organization.ts';
import { categoryLegend, categoryLink } from '../tag-colors.ts';
import { notesLayer } from '../post-notes.ts';
import { mediaMark } from '../grid.ts';

const searchLink = (segment: string, text: string) =>
  h('a', { href: `/search?q=${encodeURIComponent(segment)}` }, text);

function details(post: Post): HTMLElement {
  const row = (term: string, ...value: (Node | string)[]) => [h('dt', {}, term), h('dd', {}, ...value)];
  return h(
    'dl',
    { class: 'details' },
    row('Text', post.text ? h('span', { class: 'post-text' }, post.text) : h('span', { class: 'muted' }, 'none')),
    row(
      'Tags',
      post.tags.length
        ? h(
            'div',
            {},
            h(
              'ul',
              { class: 'tags' },
              // docs/decisions.md §19: coloured by category, in the API's order (artist first)
              post.tags.map((t) =>
                h('li', {}, categoryLink(`/search?q=${encodeURIComponent(`+${t.name}`)}`, t.name, t.category)),
              ),
            ),
            categoryLegend(),
          )
        : h('span', { class: 'muted' }, 'none'),
    ),
    post.tags.length
      ? row(
          'About',
          h(
            'span',
            {},
            'tag pages: ',
            post.tags
              .map((t, i) => [i ? ', ' : '', h('a', { href: `/tag/${encodeURIComponent(t.name)}` }, t.name)])
              .flat(),
          ),
        )
      : [],
    row('Rating', searchLink(`rating:${post.rating}`, post.rating)),
    row('Source', sourceValue(post.source)),
    post.origin ? row('Origin', originValue(post.origin)) : [],
    row('Parent', parentValue(post)),
    row(
      'Uploader',
      post.uploader
        ? searchLink(`by:${post.uploader.name}`, post.uploader.name)
        : h('span', { class: 'muted' }, 'none (imported)'),
    ),
    row('Uploaded', h('time', { datetime: post.createdAt }, formatDate(post.createdAt))),
    row('Changed', h('time', { datetime: post.updatedAt }, formatDate(post.updatedAt))),
  );
}

type Lookup = Promise<{ similar: SimilarMatch[]; robust: RobustMatch[] }>;

/** docs/decisions.md §11, §24: from the post's stored hashes, so the picture is never downloaded to be sent back. */
function similarSection(post: Post, self: Self | undefined, lookup: Lookup): HTMLElement {
  const section = h(
    'section',
    { class: 'similar', 'aria-labelledby': 'similar-h' },
    h('h2', { id: 'similar-h' }, 'Similar images'),
  );
  const msg = messageBox();
  section.append(msg.el);
  msg.info('Looking for similar images, mirrored and rotated copies too…');
  void (async () => {
    try {
      const matches = (await lookup).similar;
      msg.clear();
      const found = matches.length ? similarGrid(matches, 'Similar images') : noMatches();
      if (matches.length && can(self, PERMISSION.delete)) addMergeButtons(found, post);
      section.append(found);
    } catch (err) {
      msg.error(errorText(err));
    }
  })();
  return section;
}

/**
 * docs/decisions.md §16: the posts the robust method judges the same picture (crops, borders, captions)
 * that the hash misses; "Merge into this" for moderators, as beside the near-duplicates.
 */
function possibleDuplicatesSection(post: Post, self: Self | undefined, lookup: Lookup): HTMLElement {
  const section = h(
    'section',
    { class: 'possible-duplicates', 'aria-labelledby': 'possible-h' },
    h('h2', { id: 'possible-h' }, 'Possible duplicates'),
  );
  const msg = messageBox();
  section.append(msg.el);
  void (async () => {
    try {
      const matches = (await lookup).robust;
      if (!matches.length) {
        section.append(h('p', { class: 'empty' }, 'No cropped, framed or captioned copies found.'));
        return;
      }
      const found = robustGrid(matches, 'Possible duplicates');
      if (can(self, PERMISSION.delete)) addMergeButtons(found, post);
      section.append(found);
    } catch (err) {
      msg.error(errorText(err));
    }
  })();
  return section;
}

/**
 * docs/decisions.md §21: a video plays in place, from its poster frame, muted until the viewer unmutes
 * it, looping, inline on phones; only its metadata is read until it plays (seeking asks for ranges).
 */
function player(post: Post): HTMLVideoElement {
  const video = h('video', {
    src: post.imageURL,
    poster: post.thumbnails['1024'],
    controls: true,
    muted: true,
    loop: true,
    playsinline: true,
    preload: 'metadata',
    width: post.media.width,
    height: post.media.height,
    'aria-label': post.text.trim() || `Video of post ${post.id.slice(0, 8)}`,
  });
  video.muted = true;
  return video;
}

export async function postPage(id: string): Promise<void> {
  let post: Post;
  try {
    post = await ok(api.GET('/api/post/{id}', { params: { path: { id } } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      replace(
        main(),
        pageHeading('No such post'),
        h('p', {}, 'This post does not exist, or it was deleted. ', h('a', { href: '/' }, 'See the newest posts.')),
      );
      return;
    }
    throw err;
  }
  const self: Self | undefined = await currentUser().catch(() => undefined);
  // Looked up once: edits change metadata, never the image; the comments (docs/decisions.md §18) live on their own.
  // One request answers both lists (the robust ones leave out what the similar list shows).
  const lookup = postSimilar(post.id);
  render(post, self, [
    commentsSection(post, self),
    similarSection(post, self, lookup),
    possibleDuplicatesSection(post, self, lookup),
  ]);
}

function render(post: Post, self: Self | undefined, similar: HTMLElement[]): void {
  const rerender = (changed: Post) => render(changed, self, similar);
  const title = post.text.trim()
    ? post.text.length > 60
      ? `${post.text.slice(0, 57)}…`
      : post.text
    : `Post ${post.id.slice(0, 8)}`;
  // docs/decisions.md §23: the notes over the image, and their panel below it
  const notes = notesLayer(
    post,
    self,
    post.media.kind === 'video'
      ? player(post)
      : h(
          'a',
          { href: post.imageURL },
          h('img', {
            // docs/decisions.md §21: an animation plays as itself (its thumbnails show the poster frame)
            src: post.media.kind === 'animation' ? post.imageURL : post.thumbnails['1024'],
            alt: post.text.trim() || `Picture of post ${post.id.slice(0, 8)}`,
            width: post.media.kind === 'animation' ? post.media.width : 1024,
            height: post.media.kind === 'animation' ? post.media.height : 768,
          }),
        ),
  );
  const figure = h(
    'figure',
    { class: 'post-image' },
    notes.frame,
    h(
      'figcaption',
      {},
      h('a', { href: post.imageURL }, post.media.kind === 'image' ? 'Full-size image' : 'Original file'),
      post.media.kind === 'image' ? null : ` · ${mediaMark(post.media)}`,
    ),
    notes.panel,
  );
  const editing = can(self, PERMISSION.edit);
  const content = h(
    'div',
    { class: 'post-layout' },
    figure,
    h(
      'div',
      { class: 'post-side' },
      postActions(post, self),
      details(post),
      editing ? editForm(post, rerender) : null,
      can(self, PERMISSION.delete) ? deleteControl(post) : null,
      self && !can(self, PERMISSION.delete) ? deletionRequestForm(post) : null,
      !self
        ? h(
            'p',
            { class: 'muted' },
            h('a', { href: `/login?next=${encodeURIComponent(location.pathname)}` }, 'Log in'),
            ' to edit this post.',
          )
        : null,
    ),
  );
  const history = historySection(post, editing, rerender);
  replace(main(), pageHeading(title), poolsSection(post), content, childrenSection(post), ...similar, history);
}
