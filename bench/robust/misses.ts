/**
 * Why copies miss their original under the served rule (src/robust/rule.ts, the served
 * descriptor: windows, caption band window, cells), from the evaluation's cached descriptors (run
 * evaluate.ts first):
 *
 *   npx tsx bench/robust/misses.ts [transform,transform...]   # default caption,watermark
 *
 * Each copy falls in one class: found, flat (quality < MIN_QUALITY), too far (best pair beyond
 * THRESHOLD and the cells short of agreeing, but enough shared terms), too few shared index terms
 * (near by either way), or both;
 * with the distances of the ones too far, and the split between astronomical and other photographs.
 */
import { readFileSync } from 'node:fs';
import { cellDistance } from '../../src/robust/cells.ts';
import { matchDescriptors, MIN_QUALITY } from '../../src/robust/descriptor.ts';
import { MIN_SHARED, sharedTerms, THRESHOLD } from '../../src/robust/rule.ts';
import { loadDescriptor as load } from './corpus.ts';
import { MANIFEST, type Manifest } from './paths.ts';
import { TRANSFORMS } from './transforms.ts';
import { headerOf, parseCli } from '../lib/cli.ts';

const { photos } = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
for (const name of (args[0] ?? 'caption,watermark').split(',')) {
  const t = TRANSFORMS.find((x) => x.name === name);
  if (!t) throw new Error(`no transform ${name}`);
  const classes = { found: 0, flat: 0, tooFar: 0, fewTerms: 0, both: 0 };
  const astro = { ...classes };
  const far: number[] = [];
  for (const p of photos) {
    const o = load(`${p.id}.png.json`);
    const q = load(`${p.id}.${t.name}.${t.ext ?? 'png'}.json`);
    let c: keyof typeof classes;
    if (o.quality < MIN_QUALITY || q.quality < MIN_QUALITY) c = 'flat';
    else {
      const d = matchDescriptors(q, o, 256)!.distance;
      const near = d <= THRESHOLD || cellDistance(q.cells!, o.cells!) !== null;
      const shares = sharedTerms(q, o) >= MIN_SHARED;
      c = near && shares ? 'found' : near ? 'fewTerms' : shares ? 'tooFar' : 'both';
      if (!near) far.push(d);
    }
    classes[c]++;
    if (p.package === 'stellarium-data') astro[c]++;
  }
  far.sort((a, b) => a - b);
  console.log(
    `${name}: ${JSON.stringify(classes)}; of which astronomical ${JSON.stringify(astro)}; best distance of those beyond ${THRESHOLD}: ${far.join(' ')}`,
  );
}
