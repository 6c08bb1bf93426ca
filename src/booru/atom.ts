import { imageUrl, SMALL_THUMBNAIL, thumbnailUrl } from '../kernel/media-names.ts';
import type { PostRecord } from '../kernel/post-record.ts';

/** Characters XML 1.0 forbids (controls but tab and line breaks, lone surrogates, U+FFFE/U+FFFF) are dropped. */
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** XML's predefined entities: feed parsers that leave numeric references in attributes undecoded read these. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export const xml = (s: string): string => s.replace(FORBIDDEN, '').replace(/[&<>"']/g, (c) => ENTITIES[c]);

/**
 * `/posts.atom` (docs/decisions.md §20): the newest posts of a query as an Atom feed (RFC 4287).
 * User text is escaped; each entry links to the post's gallery page.
 */
export function atomFeed(opts: {
  origin: string;
  tags: string;
  /** the gallery's spelling of `tags` (docs/decisions.md §20), named again in the feed's own address */
  gallery: boolean;
  mediaUrl: string;
  posts: PostRecord[];
}): string {
  const { origin, tags, mediaUrl, posts } = opts;
  const params = [...(tags ? [`tags=${encodeURIComponent(tags)}`] : []), ...(opts.gallery ? ['spelling=gallery'] : [])];
  const self = `${origin}/posts.atom${params.length ? `?${params.join('&')}` : ''}`;
  const updated = posts.reduce((t, p) => (p.updatedAt > t ? p.updatedAt : t), '1970-01-01T00:00:00.000Z');
  const entries = posts.map((p) => {
    const page = `${origin}/post/${p.id}`;
    const title = p.text.split('\n')[0].slice(0, 100) || `post #${p.seq}`;
    const img = `<a href="${xml(page)}"><img src="${xml(thumbnailUrl(mediaUrl, p.id, SMALL_THUMBNAIL))}" alt="${xml(
      `post #${p.seq}`,
    )}"></a>`;
    return [
      '<entry>',
      `<id>urn:uuid:${p.id}</id>`,
      `<title>${xml(title)}</title>`,
      `<link rel="alternate" type="text/html" href="${xml(page)}"/>`,
      `<link rel="enclosure" href="${xml(imageUrl(mediaUrl, p))}" type="${xml(p.mime)}"/>`,
      `<published>${p.createdAt}</published>`,
      `<updated>${p.updatedAt}</updated>`,
      ...(p.uploaderName ? [`<author><name>${xml(p.uploaderName)}</name></author>`] : []),
      ...p.tags.map((t) => `<category term="${xml(t.name)}"/>`),
      `<summary type="text">${xml(p.text)}</summary>`,
      `<content type="html">${xml(img)}</content>`,
      '</entry>',
    ].join('');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${xml(self)}</id>`,
    `<title>${xml(tags ? `imgpost: ${tags}` : 'imgpost: newest posts')}</title>`,
    `<updated>${updated}</updated>`,
    `<author><name>imgpost</name></author>`,
    `<link rel="self" type="application/atom+xml" href="${xml(self)}"/>`,
    `<link rel="alternate" type="text/html" href="${xml(`${origin}/`)}"/>`,
    ...entries,
    '</feed>',
  ].join('\n');
}
