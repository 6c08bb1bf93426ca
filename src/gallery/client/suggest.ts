/**
 * Tag suggestions while typing (GET /api/tag, docs/decisions.md §10) through a <datalist>: the browser
 * shows them under the field and keyboard selection works natively. The last segment of the
 * field is completed; a leading + or - is kept.
 */
import { api, ok } from './api.ts';
import { h } from './dom.ts';

export function attachTagSuggestions(
  input: HTMLInputElement,
  list: HTMLDataListElement,
  opts: { signs: boolean },
): void {
  let timer: number | undefined;
  let asked = '';
  input.setAttribute('list', list.id);
  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(async () => {
      const value = input.value;
      const cut = value.search(/\S*$/);
      const head = value.slice(0, cut);
      let last = value.slice(cut);
      const sign = opts.signs && (last[0] === '+' || last[0] === '-') ? last[0] : '';
      last = last.slice(sign.length);
      // Only tag-like segments: not rating:, by:, sort: or a phrase.
      if (!last || last.includes(':') || last.startsWith('"') || (opts.signs && !sign) || last === asked) return;
      asked = last;
      try {
        const page = await ok(api.GET('/api/tag', { params: { query: { prefix: last, limit: 8 } } }));
        list.replaceChildren(
          // The category in words (docs/decisions.md §19): a datalist's options take no colour.
          ...page.data.map((t) =>
            h(
              'option',
              { value: `${head}${sign}${t.name}`, class: `cat-${t.category}` },
              `${t.name} (${t.count}) · ${t.category}`,
            ),
          ),
        );
      } catch {
        // Suggestions are a convenience: the field works without them.
        list.replaceChildren();
      }
    }, 150);
  });
}
