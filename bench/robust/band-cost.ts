/**
 * What the descriptor's optional parts add to its JavaScript, per image: the caption band window
 * (src/robust/band.ts, sixth pass) and the cells (src/robust/cells.ts, eighth pass).
 * robustDescriptor with and without the part over the evaluation set's 4,800 rasters (the worker's
 * 128-px rasters, cached by descriptor-exact.ts), in alternating rounds so the box's load falls on both.
 *
 *   npx tsx bench/robust/band-cost.ts [rounds=6] [band|cells]   # the part: band by default
 */
import { robustDescriptor } from '../../src/robust/descriptor.ts';
import { evaluationRasters } from './descriptor-exact.ts';
import { headerOf, numberArg, parseCli } from '../lib/cli.ts';

const { positionals: args } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
const rounds = numberArg(args[0], 6);
const part = args[1] ?? 'band';
if (part !== 'band' && part !== 'cells') throw new Error('the part: band or cells');
const rasters = (await evaluationRasters()).map(([, g]) => g);
const ms = { without: [] as number[], with: [] as number[] };
let bands = 0;
for (let r = 0; r < rounds; r++) {
  for (const on of r % 2 ? [true, false] : [false, true]) {
    const t0 = performance.now();
    for (const g of rasters) if (robustDescriptor(g, { [part]: on }).band && r === 0 && on) bands++;
    ms[on ? 'with' : 'without'].push((performance.now() - t0) / rasters.length);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const [a, b] = [median(ms.without), median(ms.with)];
console.log(
  `${rasters.length} rasters, ${bands} with a band; ms per descriptor, median of ${rounds} rounds: without the ${part === 'band' ? 'band window' : 'cells'} ${a.toFixed(3)}, with ${b.toFixed(3)} (+${((100 * (b - a)) / a).toFixed(1)} %)`,
);
