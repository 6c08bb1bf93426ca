/**
 * The tasks of the hash worker pool: what src/hashing/pool.ts sends to workers/hash-worker.ts and
 * what comes back. They live here, below both, so the pool names the worker only by its path
 * (a worker is an entry point, at the top of the layer list) and the worker imports its contract.
 */
import type { Transform } from './dihedral.ts';
import type { Cells } from '../robust/cells.ts';

/**
 * Error subclasses do not survive the worker boundary, so the worker marks a failure caused by the
 * upload itself with this prefix and the pool turns it back into a validation error.
 */
export const INVALID_PREFIX = 'IMAGE_INVALID: ';

export interface ImageInfo {
  /**
   * One of the keys of IMAGE_FORMATS (src/media-store/formats.ts); a plain string here because hashing
   * sits below media in the layer list. The worker sets it from that table.
   */
  format: string;
  mime: string;
  ext: string;
  width: number;
  height: number;
  pages: number;
  hash: string;
  /**
   * only when asked for (`dihedral: true`): the hash under each of the eight symmetries, see src/hashing/dihedral.ts
   */
  dihedral?: Record<Transform, string>;
}

export interface AnalyseRequest {
  path: string;
  /** also hash the eight mirrored/rotated variants of the 32x32 grey matrix */
  dihedral?: boolean;
}

export interface ThumbnailRequest {
  /** an image `analyse` has accepted */
  path: string;
  /** one WebP per entry, at most `size` pixels on the long side */
  outputs: { size: number; path: string }[];
  /** also the robust descriptor, from the small thumbnail's decode (src/robust/raster.ts) */
  descriptor?: boolean;
}

/** What a thumbnails task returns: each thumbnail made, and the descriptor when asked for. */
export interface ThumbnailResult {
  made: MadeThumbnail[];
  descriptor?: RobustResult;
}

/** What a thumbnails task returns for each output: its size and the pixels it came out at. */
export interface MadeThumbnail {
  size: number;
  width: number;
  height: number;
}

/** The robust descriptor task (docs/decisions.md §16): an accepted image's grey raster, trimmed and hashed. */
export interface RobustRequest {
  path: string;
}

/**
 * The descriptor of src/robust/descriptor.ts as it crosses the worker boundary; an image the
 * worker could not decode comes back as quality 0 and no hashes (computed, never matching).
 */
export interface RobustResult {
  quality: number;
  hashes: Uint32Array;
  cells?: Cells;
}
