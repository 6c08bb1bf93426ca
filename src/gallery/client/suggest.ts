/**
 * Tag suggestions while typing (GET /api/tag, docs/decisions.md §10) in a listbox of our own under the
 * field: a <datalist> would be simpler, but its options take no colour, and the suggestions show each
 * tag in its category's colour with the category in words (docs/decisions.md §19). The field is an ARIA
 * combobox: arrows move through the suggestions, Enter takes one, Escape closes them; a tap or click
 * takes one too. The last segment of the field is completed; a leading + or - is kept.
 */
import { api, ok } from './api.ts';
import { h } from './dom.ts';

export function attachTagSuggestions(input: HTMLInputElement, list: HTMLUListElement, opts: { signs: boolean }): void {
  let timer: number | undefined;
  let asked = '';
  let active = -1;
  list.setAttribute('role', 'listbox');
  list.classList.add('suggestions');
  list.hidden = true;
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', list.id);
  input.setAttribute('aria-expanded', 'false');

  const options = () => [...list.children] as HTMLLIElement[];
  const open = (show: boolean) => {
    list.hidden = !show;
    input.setAttribute('aria-expanded', String(show));
    if (!show) highlight(-1);
  };
  function highlight(i: number) {
    active = i;
    options().forEach((o, k) => o.setAttribute('aria-selected', String(k === i)));
    if (i >= 0) input.setAttribute('aria-activedescendant', options()[i].id);
    else input.removeAttribute('aria-activedescendant');
  }
  const take = (option: HTMLLIElement) => {
    input.value = option.dataset.value ?? input.value;
    // The field now ends with the whole tag: no new suggestions for it.
    asked = input.value.slice(input.value.search(/\S*$/)).replace(/^[+-]/, '');
    open(false);
    input.focus();
  };

  input.addEventListener('keydown', (e) => {
    const n = options().length;
    if (list.hidden || n === 0) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      highlight(e.key === 'ArrowDown' ? (active + 1) % n : (active - 1 + n) % n);
    } else if (e.key === 'Enter' && active >= 0) {
      e.preventDefault();
      take(options()[active]);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      open(false);
    }
  });
  // pointerdown, not click: the field keeps its focus, so its blur does not close the list first.
  list.addEventListener('pointerdown', (e) => {
    const option = (e.target as Element).closest('li');
    if (!option) return;
    e.preventDefault();
    take(option as HTMLLIElement);
  });
  input.addEventListener('blur', () => open(false));

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
      if (!last || last.includes(':') || last.startsWith('"') || (opts.signs && !sign) || last === asked) {
        if (!last) open(false);
        return;
      }
      asked = last;
      try {
        const page = await ok(api.GET('/api/tag', { params: { query: { prefix: last, limit: 8 } } }));
        list.replaceChildren(
          ...page.data.map((t, i) =>
            h(
              'li',
              {
                id: `${list.id}-${i}`,
                role: 'option',
                'aria-selected': 'false',
                class: `cat-${t.category}`,
                'data-value': `${head}${sign}${t.name}`,
              },
              t.name,
              h('small', {}, ` (${t.count}) · ${t.category}`),
            ),
          ),
        );
        highlight(-1);
        open(page.data.length > 0 && document.activeElement === input);
      } catch {
        // Suggestions are a convenience: the field works without them.
        list.replaceChildren();
        open(false);
      }
    }, 150);
  });
}
