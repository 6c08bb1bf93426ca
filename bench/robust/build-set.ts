/**
 * Builds the robust near-duplicate evaluation set (issue 25) in one command:
 *
 *   npx tsx bench/robust/build-set.ts            # download, extract, select, derive
 *   npx tsx bench/robust/build-set.ts --verify   # rebuild from bench/robust/manifest.json only
 *
 * Photographs come from Debian packages (`apt-get download`, `dpkg-deb -x`) into a cache outside git
 * (ROBUST_CACHE, default ~/.cache/imgpost-robust). The committed manifest records every selected
 * file's package, version, path inside the package and licence; the images are never committed.
 * Each original is downscaled to at most 1024 px on its long side, then every transform in
 * transforms.ts is applied with sharp (deterministic: fixed parameters, no randomness).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import sharp from 'sharp';
import { CACHE, MANIFEST, ORIGINALS, DERIVED, type ManifestEntry, type Manifest } from './paths.ts';
import { TRANSFORMS } from './transforms.ts';
import { dctHash } from '../../src/hashing/phash.ts';
import { headerOf, parseCli } from '../lib/cli.ts';

/** The packages, in selection order; `pick` chooses which extracted files are photographs. */
const PACKAGES: { name: string; pick: (rel: string) => boolean; max?: number }[] = [
  { name: 'plasma-workspace-wallpapers', pick: (p) => /contents\/images\/.*\.jpe?g$/i.test(p) },
  { name: 'mate-backgrounds', pick: (p) => /\.jpe?g$/i.test(p) },
  { name: 'ukui-wallpapers', pick: (p) => /\.jpe?g$/i.test(p) },
  { name: 'lomiri-wallpapers-16.04', pick: (p) => /\.jpe?g$/i.test(p) },
  { name: 'lomiri-wallpapers-20.04', pick: (p) => /\.jpe?g$/i.test(p) },
  {
    name: 'python3-skimage',
    pick: (p) =>
      /\/data\/(astronaut|camera|coffee|chelsea|rocket|motorcycle_left|motorcycle_right|hubble_deep_field|coins|brick|grass|gravel|moon|page|text|immunohistochemistry|ihc|retina|cell|microaneurysms)\.(png|jpg)$/i.test(
        p,
      ) && !/motorcycle_right/.test(p), // the right view of the stereo pair is nearly the left one
  },
  { name: 'palapeli-data', pick: (p) => /\.jpe?g$/i.test(p) },
  { name: 'opencv-doc', pick: (p) => /examples\/data\/.*\.jpe?g$|opencv4\/html\/.*\.jpe?g$/i.test(p), max: 90 },
  // astronomical photographs (one per object), to reach the count with distinct real photographs
  { name: 'stellarium-data', pick: (p) => /nebulae\/default\/.*\.png$/i.test(p), max: 140 },
];

const TARGET = 240;
const MIN_SIDE = 200;

function sh(cmd: string, args: string[], cwd?: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function ensurePackage(name: string, version?: string): { dir: string; version: string } {
  const debs = join(CACHE, 'debs');
  mkdirSync(debs, { recursive: true });
  const want = version ? `${name}=${version}` : name;
  let deb = readdirSync(debs).find(
    (f) => f.startsWith(`${name}_`) && (!version || f.includes(version.replace(':', '%3a'))),
  );
  if (!deb) {
    sh('apt-get', ['download', want], debs);
    deb = readdirSync(debs).find((f) => f.startsWith(`${name}_`))!;
  }
  const dir = join(CACHE, 'x', deb.replace(/\.deb$/, ''));
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    sh('dpkg-deb', ['-x', join(debs, deb), dir]);
  }
  const ver = sh('dpkg-deb', ['-f', join(debs, deb), 'Version']).trim();
  return { dir, version: ver };
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** DEP-5 copyright: the licence of the last `Files:` stanza whose glob matches the file's tail. */
function licenceOf(pkgDir: string, pkg: string, rel: string): string {
  const file = join(pkgDir, 'usr/share/doc', pkg, 'copyright');
  if (!existsSync(file)) return 'unknown';
  const stanzas = readFileSync(file, 'utf8').split(/\n\s*\n/);
  let best = 'unknown';
  let bestScore = -1;
  for (const s of stanzas) {
    const files = /^Files:\s*([\s\S]*?)(?=^\S+:)/m.exec(s + '\nEnd:');
    const lic = /^License:\s*(.+)$/m.exec(s);
    if (!files || !lic) continue;
    for (const glob of files[1].split(/\s+/).filter(Boolean)) {
      const re = new RegExp(
        '(^|/)' +
          glob
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.') +
          '$',
      );
      // stanzas name source paths; installed paths may differ above the file name
      const base = glob.includes('*') ? null : glob.split('/').pop()!;
      if (re.test(rel) || (base && rel.split('/').pop() === base)) {
        const score = glob === '*' ? 0 : glob.length;
        if (score >= bestScore) {
          best = lic[1].trim();
          bestScore = score;
        }
      }
    }
  }
  return best;
}

async function greyHash(path: string): Promise<string> {
  const g = await sharp(path).greyscale().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  return dctHash(new Uint8Array(g));
}

const hd = (a: string, b: string) => {
  let d = 0;
  for (let i = 0; i < 64; i++) if (a[i] !== b[i]) d++;
  return d;
};

async function select(): Promise<Manifest> {
  const entries: ManifestEntry[] = [];
  const hashes: string[] = [];
  for (const pkg of PACKAGES) {
    const { dir, version } = ensurePackage(pkg.name);
    const files = walk(dir)
      .map((f) => relative(dir, f))
      .filter(pkg.pick)
      .sort();
    // one file per picture: plasma ships each wallpaper in several sizes, keep the largest
    const byStem = new Map<string, string>();
    for (const rel of files) {
      const stem = rel.includes('contents/images/')
        ? rel.split('contents/images/')[0]
        : rel.replace(/_\d+x\d+(?=\.)/, '');
      const prev = byStem.get(stem);
      if (!prev || statSync(join(dir, rel)).size > statSync(join(dir, prev)).size) byStem.set(stem, rel);
    }
    let taken = 0;
    for (const rel of [...byStem.values()].sort()) {
      if (entries.length >= TARGET || (pkg.max && taken >= pkg.max)) break;
      const abs = join(dir, rel);
      let meta;
      try {
        meta = await sharp(abs).metadata();
      } catch {
        continue;
      }
      if (!meta.width || !meta.height || Math.min(meta.width, meta.height) < MIN_SIDE) continue;
      const stats = await sharp(abs).greyscale().resize(256, 256, { fit: 'inside' }).stats();
      if (stats.channels[0].stdev < 25) continue; // near-flat (diagrams, dark sky frames)
      const h = await greyHash(abs);
      if (hashes.some((o) => hd(o, h) <= 10)) continue; // same picture twice (other size, other package)
      hashes.push(h);
      entries.push({
        id: `p${String(entries.length).padStart(3, '0')}`,
        package: pkg.name,
        version,
        path: rel,
        licence: licenceOf(dir, pkg.name, rel),
        width: meta.width,
        height: meta.height,
      });
      taken++;
    }
  }
  return {
    generatedBy: 'npx tsx bench/robust/build-set.ts',
    cache: '~/.cache/imgpost-robust (ROBUST_CACHE)',
    photos: entries,
  };
}

async function derive(manifest: Manifest): Promise<void> {
  mkdirSync(ORIGINALS, { recursive: true });
  mkdirSync(DERIVED, { recursive: true });
  const dirs = new Map<string, string>();
  const jobs = manifest.photos.map((e, index) => async () => {
    if (!dirs.has(e.package + e.version)) dirs.set(e.package + e.version, ensurePackage(e.package, e.version).dir);
    const src = join(dirs.get(e.package + e.version)!, e.path);
    const orig = join(ORIGINALS, `${e.id}.png`);
    if (!existsSync(orig)) {
      await sharp(src)
        .rotate()
        .flatten({ background: '#808080' })
        .toColourspace('srgb')
        .resize(1024, 1024, { fit: 'inside', withoutEnlargement: true })
        .png({ compressionLevel: 1 })
        .toFile(orig);
    }
    for (const t of TRANSFORMS) {
      const out = join(DERIVED, `${e.id}.${t.name}.${t.ext ?? 'png'}`);
      if (existsSync(out)) continue;
      const buf = await t.apply(orig, index);
      writeFileSync(out, buf);
    }
  });
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

const { values: args } = parseCli({
  usage: headerOf(import.meta.url),
  options: { verify: { type: 'boolean' }, reselect: { type: 'boolean' } },
});
const verify = args.verify ?? false;
let manifest: Manifest;
if (verify || (existsSync(MANIFEST) && !args.reselect)) {
  manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
} else {
  manifest = await select();
  writeFileSync(MANIFEST, JSON.stringify(manifest, null, 1) + '\n');
}
console.log(`${manifest.photos.length} photographs; deriving ${TRANSFORMS.length} copies each into ${DERIVED}`);
const t0 = Date.now();
await derive(manifest);
console.log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
