/**
 * Why copies miss their original under the served rule (src/hashing/robust/rule.ts), from the
 * evaluation's cached descriptors (run evaluate.ts first):
 *
 *   npx tsx bench/robust/misses.ts [transform,transform...]   # default caption,watermark
 *
 * Each copy falls in one class: found, flat (quality < MIN_QUALITY), too far (best pair beyond
 * THRESHOLD, but enough shared terms), too few shared index terms (within THRESHOLD), or both;
 * with the distances of the ones too far, and the split between astronomical and other photographs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { descriptorFromHex, matchDescriptors, MIN_QUALITY, WINDOWS, WINDOW_SETS } from '../../src/hashing/robust/descriptor.ts';
import { MIN_SHARED, sharedSegments, THRESHOLD } from '../../src/hashing/robust/rule.ts';
import { HASH_DIR as DIR, MANIFEST, type Manifest } from './paths.ts';
import { TRANSFORMS } from './transforms.ts';

const ALL = WINDOW_SETS.w32;
const pick = [0, ...WINDOWS.map((w) => 1 + ALL.findIndex((a) => a.name === w.name))];
const load = (file: string) => {
  const h = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { robust: string[]; quality: number };
  return { hashes: descriptorFromHex(pick.map((i) => h.robust[i])), quality: h.quality };
};
const { photos } = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
for (const name of (process.argv[2] ?? 'caption,watermark').split(',')) {
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
      const near = d <= THRESHOLD;
      const shares = sharedSegments(q.hashes, o.hashes) >= MIN_SHARED;
      c = near && shares ? 'found' : near ? 'fewTerms' : shares ? 'tooFar' : 'both';
      if (!near) far.push(d);
    }
    classes[c]++;
    if (p.package === 'stellarium-data') astro[c]++;
  }
  far.sort((a, b) => a - b);
  console.log(`${name}: ${JSON.stringify(classes)}; of which astronomical ${JSON.stringify(astro)}; best distance of those beyond ${THRESHOLD}: ${far.join(' ')}`);
}
