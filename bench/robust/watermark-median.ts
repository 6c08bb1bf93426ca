/**
 * Issue 25, the watermark row (measured, not kept): a median filter on the worker's 128-px raster
 * before the descriptor, on both sides, against the served descriptor. Recall per row (! = below its
 * goal) and false matches under the served rule, on the evaluation set's rasters (cached by
 * descriptor-exact.ts):
 *
 *   npx tsx bench/robust/watermark-median.ts     # 3x3; R=2 for 5x5
 */
import { readFileSync } from 'node:fs';
import { robustDescriptor } from '../../src/robust/descriptor.ts';
import type { Grey } from '../../src/robust/grey.ts';
import { robustMatch, type Descriptor } from '../../src/robust/rule.ts';
import { evaluationRasters } from './descriptor-exact.ts';
import { MANIFEST, type Manifest } from './paths.ts';
import { TRANSFORMS } from './transforms.ts';
import { headerOf, parseCli } from '../lib/cli.ts';

parseCli({ usage: headerOf(import.meta.url) });

const R = Number(process.env.R ?? 1);

function median(g: Grey): Grey {
  const { width: w, height: h, pixels } = g;
  const out = new Uint8Array(w * h);
  const window: number[] = [];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      window.length = 0;
      for (let dy = -R; dy <= R; dy++)
        for (let dx = -R; dx <= R; dx++)
          window.push(pixels[Math.min(h - 1, Math.max(0, y + dy)) * w + Math.min(w - 1, Math.max(0, x + dx))]);
      window.sort((a, b) => a - b);
      out[y * w + x] = window[window.length >> 1];
    }
  return { width: w, height: h, pixels: out };
}

const { photos } = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
const ids = photos.map((p) => p.id);
const rasters = await evaluationRasters();
const served = new Map<string, Descriptor>();
const filtered = new Map<string, Descriptor>();
for (const [name, g] of rasters) {
  served.set(name, robustDescriptor(g));
  filtered.set(name, robustDescriptor(median(g)));
}
const rows = [
  ...TRANSFORMS.map((t) => ({ name: t.name, goal: t.goal, file: (id: string) => `${id}.${t.name}.${t.ext ?? 'png'}` })),
  { name: 'originals', goal: undefined, file: (id: string) => `${id}.png` },
];
for (const [label, d] of [
  ['served', served],
  [`median ${2 * R + 1}x${2 * R + 1}`, filtered],
] as const) {
  let fp = 0,
    pairs = 0;
  const out: string[] = [];
  for (const r of rows) {
    let hits = 0;
    ids.forEach((id, i) => {
      const q = d.get(r.file(id))!;
      if (r.name !== 'originals' && robustMatch(q, d.get(`${id}.png`)!)) hits++;
      ids.forEach((o, j) => {
        if (j === i) return;
        pairs++;
        if (robustMatch(q, d.get(`${o}.png`)!)) fp++;
      });
    });
    out.push(`${r.name} ${((100 * hits) / ids.length).toFixed(1)}${r.goal && hits / ids.length < r.goal ? '!' : ''}`);
  }
  console.log(`${label}: ${out.join(' | ')}; false matches ${((100 * fp) / pairs).toFixed(4)} % (${fp} pairs)`);
}
