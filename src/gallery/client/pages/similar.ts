/**
 * `/similar`: drop a picture, see the posts that look like it (mirrored and rotated copies too) with their distance.
 */
import { errorText } from '../api.ts';
import { field, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { dropZone } from '../drop.ts';
import { findSimilar, noMatches, similarGrid } from '../similar-list.ts';

export async function similarPage(): Promise<void> {
  const msg = messageBox();
  const drop = dropZone('similar-image', 'Picture to compare');
  const maxDiff = h('input', {
    id: 'max-diff',
    name: 'maxDiff',
    type: 'number',
    min: 0,
    max: 11,
    value: 8,
    inputmode: 'numeric',
  });
  const results = h('section', { class: 'results-only', 'aria-label': 'Matches' });
  const form = h(
    'form',
    { class: 'stack' },
    drop.el,
    field(maxDiff, 'Most differing bits (0 to 11)'),
    h('button', { type: 'submit' }, 'Find similar'),
    msg.el,
  );
  const search = async () => {
    const file = drop.file();
    if (!file) {
      msg.error('Choose a picture first.');
      return;
    }
    msg.info('Searching…');
    results.replaceChildren();
    try {
      const matches = await findSimilar(file, file.name, Number(maxDiff.value));
      msg.info(`${matches.length} ${matches.length === 1 ? 'match' : 'matches'}, closest first.`);
      replace(results, matches.length ? similarGrid(matches, 'Similar images') : noMatches());
    } catch (err) {
      msg.error(errorText(err));
    }
  };
  drop.onChange((file) => {
    if (file) void search();
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void search();
  });
  replace(
    main(),
    pageHeading('Find similar images'),
    h('p', {}, 'Mirrored and rotated copies are found too.'),
    form,
    results,
  );
}
