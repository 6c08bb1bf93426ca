/**
 * Tag categories in colour (docs/decisions.md §19): each category a class (`cat-artist`...) that
 * gallery.css colours, and a legend naming them, so the colour is never the only sign (the legend and
 * each tag's title say the category in words).
 */
import type { Schemas } from './api.ts';
import { h } from './dom.ts';

export type TagCategory = Schemas['TagCategory'];
export const CATEGORIES: readonly TagCategory[] = ['artist', 'copyright', 'character', 'general', 'meta'];

export const categoryClass = (category: TagCategory) => `cat-${category}`;

/** A tag link coloured by its category. */
export function categoryLink(href: string, name: string, category: TagCategory): HTMLAnchorElement {
  return h(
    'a',
    { href, class: categoryClass(category), title: `${name} (${category})`, 'data-category': category },
    name,
  );
}

/** The colours' key. */
export function categoryLegend(): HTMLElement {
  return h(
    'ul',
    { class: 'tags legend', 'aria-label': 'Tag colours' },
    CATEGORIES.map((c) => h('li', {}, h('span', { class: `chip ${categoryClass(c)}` }, c))),
  );
}
