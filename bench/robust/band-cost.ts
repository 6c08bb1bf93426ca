/**
 * What the caption band window (src/hashing/robust/band.ts) adds to the descriptor's JavaScript, per
 * image: robustDescriptor with and without it over the evaluation set's 4,800 rasters (the worker's
 * 128-px rasters, cached by descriptor-exact.ts), in alternating rounds so the box's load falls on both.
 *
 *   npx tsx bench/robust/band-cost.ts [rounds=6]
 */
import { robustDescriptor } from '../../src/hashing/robust/descriptor.ts';
import { evaluationRasters } from './descriptor-exact.ts';

const rounds = Number(process.argv[2] ?? 6);
const rasters = (await evaluationRasters()).map(([, g]) => g);
const ms = { without: [] as number[], with: [] as number[] };
let bands = 0;
for (let r = 0; r < rounds; r++) {
  for (const band of r % 2 ? [true, false] : [false, true]) {
    const t0 = performance.now();
    for (const g of rasters) if (robustDescriptor(g, { band }).band && r === 0) bands++;
    ms[band ? 'with' : 'without'].push((performance.now() - t0) / rasters.length);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const [a, b] = [median(ms.without), median(ms.with)];
console.log(`${rasters.length} rasters, ${bands} with a band; ms per descriptor, median of ${rounds} rounds: without the band window ${a.toFixed(3)}, with ${b.toFixed(3)} (+${((100 * (b - a)) / a).toFixed(1)} %)`);
