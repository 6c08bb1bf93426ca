/**
 * A comment as docs/decisions.md §18 renders it, and nothing more: plain text whose line breaks stay
 * (the container has `white-space: pre-wrap`), `http(s)://` links made links (rel="nofollow ugc
 * noopener") and `post #N` a link to post number N. Everything is built as text nodes and elements
 * with attributes set one by one: no markup from the comment is ever parsed.
 */
import { h, type Child } from './dom.ts';

const TOKENS = /\bhttps?:\/\/[^\s<>"]+|\bpost #(\d{1,15})\b/giu;
/** Punctuation that ends a sentence rather than the address. */
const TRAILING = /[.,;:!?'"*_)\]}]+$/u;

/** A link for an http(s) address as written, or undefined when it is none. */
function webLink(written: string): HTMLAnchorElement | undefined {
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return h('a', { href: url.href, rel: 'nofollow ugc noopener' }, written);
}

export function commentText(body: string): Child[] {
  const out: Child[] = [];
  let at = 0;
  for (const m of body.matchAll(TOKENS)) {
    let token = m[0];
    let link: HTMLAnchorElement | undefined;
    if (m[1] !== undefined) link = h('a', { href: `/post/${m[1]}` }, token);
    else {
      // A closing bracket stays when the address opened one: https://en.wikipedia.org/wiki/Foo_(bar)
      const cut = TRAILING.exec(token);
      if (cut) {
        let tail = cut[0];
        while (tail.startsWith(')') && token.slice(0, -tail.length).includes('(')) tail = tail.slice(1);
        token = token.slice(0, token.length - tail.length);
      }
      link = webLink(token);
    }
    if (!link) continue;
    out.push(body.slice(at, m.index), link);
    at = m.index + token.length;
  }
  out.push(body.slice(at));
  return out.filter((c) => c !== '');
}
