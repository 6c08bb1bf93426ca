/**
 * The account page's safe browsing (docs/decisions.md §14): which ratings the gallery's grids show; and the
 * blacklist (§18): lines of tags whose posts the grids hide.
 */
import { errorText, type Rating } from '../api.ts';
import { MAX_LINE, MAX_LINES, normalise, readBlacklist, saveBlacklist } from '../blacklist.ts';
import { h, messageBox } from '../dom.ts';
import { RATINGS, saveRatings, visibleRatings } from '../preferences.ts';

/** The blacklist editor: one line per rule; shown to visitors too (their list stays in this browser). */
export async function blacklistSection(signedIn: boolean): Promise<HTMLElement> {
  const msg = messageBox();
  const area = h('textarea', {
    id: 'blacklist',
    name: 'blacklist',
    rows: 5,
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-describedby': 'blacklist-help',
  });
  area.value = (await readBlacklist()).join('\n');
  const form = h(
    'form',
    { class: 'stack' },
    h('label', { for: area.id }, 'Hide posts tagged'),
    h(
      'p',
      { id: 'blacklist-help', class: 'muted' },
      `One rule per line, at most ${MAX_LINES} lines of ${MAX_LINE} characters: a post carrying every tag of a line `,
      'is hidden from the grids; -tag means "but not with this tag" (spiders -cute). ',
      signedIn ? 'Kept with your account.' : 'Kept in this browser.',
    ),
    area,
    h('button', { type: 'submit', id: 'save-blacklist' }, 'Save blacklist'),
    msg.el,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const lines = normalise(area.value.split('\n'));
    if (lines.length > MAX_LINES) return msg.error(`At most ${MAX_LINES} lines; this has ${lines.length}.`);
    if (lines.some((l) => l.length > MAX_LINE)) return msg.error(`A line is at most ${MAX_LINE} characters.`);
    try {
      const saved = await saveBlacklist(lines);
      area.value = saved.join('\n');
      msg.info(
        saved.length ? `Saved: ${saved.length} ${saved.length === 1 ? 'rule' : 'rules'}.` : 'Saved: nothing is hidden.',
      );
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return h('section', { 'aria-labelledby': 'blacklist-h' }, h('h2', { id: 'blacklist-h' }, 'Blacklist'), form);
}

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
