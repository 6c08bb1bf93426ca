/**
 * Bit-exactness of the robust descriptor across a change of its code (issue 25: the descriptor was
 * made cheaper without a format bump, so every stored descriptor must stay what the code computes):
 *
 *   npx tsx bench/robust/descriptor-exact.ts save /tmp/before.json   # with the old code checked out
 *   npx tsx bench/robust/descriptor-exact.ts check /tmp/before.json  # with the new code
 *
 * Over the whole evaluation set (originals and derived copies, the worker's 128-px raster, decoded
 * once and cached in ROBUST_CACHE/rasters-128.bin so both runs hash the same bytes) plus synthetic
 * rasters (seeded noise, gradients, flat and degenerate sizes): the trimmed box, the quality, every
 * window of every window set (w32 holds them all) and the trimmed 64-bit hash of phash-box.ts,
 * which shares the grid resampling.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { descriptorToHex, robustDescriptor, WINDOW_SETS } from '../../src/robust/descriptor.ts';
import { BASE, DESCRIPTOR_SOURCE, integral, type Grey } from '../../src/robust/grey.ts';
import { phashOfBox } from '../../src/hashing/phash-box.ts';
import { greyRaster, sourceRaster } from '../../src/robust/raster.ts';
import { CACHE, DERIVED, ORIGINALS } from './paths.ts';
import { syntheticRasters } from './synthetic-rasters.ts';
import { headerOf, isMain, parseCli, usageError } from '../lib/cli.ts';

const RASTERS = join(CACHE, `rasters-${DESCRIPTOR_SOURCE}-${BASE}.bin`);

/** The worker's raster (src/robust/raster.ts). */
async function raster(path: string): Promise<Grey> {
  const g = await greyRaster(await sourceRaster(sharp(readFileSync(path), { failOn: 'none', autoOrient: true })));
  if (!g) throw new Error(`${path}: no grey raster`);
  return g;
}

/** name, then u16 width, u16 height, pixels; one record after another. */
export async function evaluationRasters(): Promise<[string, Grey][]> {
  const out: [string, Grey][] = [];
  if (!existsSync(RASTERS)) {
    const files = [ORIGINALS, DERIVED].flatMap((d) =>
      existsSync(d)
        ? readdirSync(d)
            .sort()
            .map((f) => join(d, f))
        : [],
    );
    const parts: Buffer[] = [];
    for (const f of files) {
      const g = await raster(f);
      const name = Buffer.from(f.split('/').pop()!);
      const head = Buffer.alloc(6);
      head.writeUInt16LE(name.length, 0);
      head.writeUInt16LE(g.width, 2);
      head.writeUInt16LE(g.height, 4);
      parts.push(head, name, Buffer.from(g.pixels));
    }
    writeFileSync(RASTERS, Buffer.concat(parts));
  }
  const buf = readFileSync(RASTERS);
  for (let at = 0; at < buf.length; ) {
    const n = buf.readUInt16LE(at),
      width = buf.readUInt16LE(at + 2),
      height = buf.readUInt16LE(at + 4);
    const name = buf.toString('utf8', at + 6, at + 6 + n);
    at += 6 + n;
    out.push([name, { width, height, pixels: new Uint8Array(buf.subarray(at, at + width * height)) }]);
    at += width * height;
  }
  return out;
}

export interface Snapshot {
  [name: string]: {
    trimmed: string;
    quality: number;
    width: number;
    height: number;
    hashes: string;
    trimPhash: string;
  };
}

export function snapshotOf(list: [string, Grey][]): Snapshot {
  const out: Snapshot = {};
  for (const [name, g] of list) {
    const d = robustDescriptor(g, { windows: WINDOW_SETS.w32 });
    out[name] = {
      trimmed: [d.trimmed.x, d.trimmed.y, d.trimmed.w, d.trimmed.h].join(','),
      quality: d.quality,
      width: d.width,
      height: d.height,
      hashes: descriptorToHex(d).join(' '),
      trimPhash: phashOfBox(integral(g), d.trimmed),
    };
  }
  return out;
}

if (isMain(import.meta.url)) {
  const usage = headerOf(import.meta.url);
  const [mode, file] = parseCli({ usage, positionals: true }).positionals;
  if ((mode !== 'save' && mode !== 'check') || !file) usageError(usage, 'expected: save|check <file.json>');
  const list = [...(await evaluationRasters()), ...syntheticRasters()];
  const t0 = performance.now();
  const now = snapshotOf(list);
  const ms = performance.now() - t0;
  if (mode === 'save') {
    writeFileSync(file, JSON.stringify(now));
    console.log(`saved ${list.length} descriptors (${(ms / list.length).toFixed(3)} ms each)`);
  } else {
    const before: Snapshot = JSON.parse(readFileSync(file, 'utf8'));
    let differ = 0,
      bits = 0;
    for (const [name, d] of Object.entries(now)) {
      const b = before[name];
      if (!b) throw new Error(`${name} missing from ${file}`);
      if (JSON.stringify(b) !== JSON.stringify(d)) {
        differ++;
        if (differ <= 5) console.log(`differs: ${name}`, b, d);
        for (let i = 0; i < d.hashes.length; i++) if (d.hashes[i] !== b.hashes[i]) bits += 1;
      }
    }
    if (Object.keys(before).length !== list.length)
      throw new Error(`${file} holds ${Object.keys(before).length} descriptors, this run ${list.length}`);
    console.log(
      `${list.length} descriptors (${(ms / list.length).toFixed(3)} ms each): ${differ} differ${differ ? ` (${bits} hex digits)` : ', all identical bit for bit'}`,
    );
    if (differ) process.exitCode = 1;
  }
}
