/** Where the evaluation set lives: the manifest in git, the images in a cache outside it. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BASE, DESCRIPTOR_SOURCE } from '../../src/robust/grey.ts';

export const CACHE = process.env.ROBUST_CACHE ?? join(homedir(), '.cache', 'imgpost-robust');
export const ORIGINALS = join(CACHE, 'set', 'originals');
export const DERIVED = join(CACHE, 'set', 'derived');
export const HASH_CACHE = join(CACHE, 'hashes');
/** evaluate.ts's cached hashes of every image: they depend on the raster (src/robust/raster.ts) */
export const HASH_DIR = `${HASH_CACHE}-${DESCRIPTOR_SOURCE}-${BASE}`;
export const MANIFEST = new URL('./manifest.json', import.meta.url).pathname;
export const RESULTS = new URL('./RESULTS.md', import.meta.url).pathname;

export interface ManifestEntry {
  id: string;
  package: string;
  version: string;
  /** path inside the package (as extracted by dpkg-deb -x) */
  path: string;
  /** licence of the matching Files: stanza of the package's debian/copyright */
  licence: string;
  width: number;
  height: number;
}

export interface Manifest {
  generatedBy: string;
  cache: string;
  photos: ManifestEntry[];
}
