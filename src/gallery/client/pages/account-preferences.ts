/** The account page's safe browsing (docs/decisions.md §14): which ratings the gallery's grids show. */
import { errorText, type Rating } from '../api.ts';
import { h, messageBox } from '../dom.ts';
import { RATINGS, saveRatings, visibleRatings } from '../preferences.ts';

export async function preferencesSection(): Promise<HTMLElement> {
  const msg = messageBox();
  const current = await visibleRatings();
  const boxes = RATINGS.map((r) => {
    const input = h('input', {
      type: 'checkbox',
      id: `rating-${r}`,
      name: 'ratings',
      value: r,
      checked: current.includes(r),
    });
    return { r, input, row: h('label', { class: 'check', for: input.id }, input, ` ${r}`) };
  });
  const form = h(
    'form',
    { class: 'stack' },
    h(
      'fieldset',
      { class: 'bits' },
      h('legend', {}, 'Show posts rated'),
      boxes.map((b) => b.row),
    ),
    h('button', { type: 'submit', id: 'save-ratings' }, 'Save preferences'),
    msg.el,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const saved = await saveRatings(boxes.filter((b) => b.input.checked).map((b) => b.r as Rating));
      msg.info(`Saved: the gallery shows ${saved.length ? saved.join(', ') : 'no'} posts.`);
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return h('section', { 'aria-labelledby': 'prefs-h' }, h('h2', { id: 'prefs-h' }, 'Safe browsing'), form);
}
