/**
 * The eight symmetries of the square (the dihedral group D4), applied to the 32x32 grey matrix
 * before the DCT, so mirrored and rotated copies of an image can be looked up (docs/decisions.md §11).
 *
 * A name says how the *uploaded* image relates to a matched post's image: `rotate90` means the
 * upload is the post's image turned 90° clockwise; `mirrorRotate90` means the post's image mirrored
 * left-right, then turned 90° clockwise. Rotations are clockwise, as in sharp's `rotate(angle)`.
 */

export const TRANSFORMS = [
  'none',
  'mirror',
  'rotate90',
  'rotate180',
  'rotate270',
  'mirrorRotate90',
  'mirrorRotate180',
  'mirrorRotate270',
] as const;
export type Transform = (typeof TRANSFORMS)[number];

const N = 32;

/**
 * For an output pixel (x, y), the input pixel it comes from under each symmetry, with m = N - 1.
 * Mirror: (x, y) <- (m - x, y). Clockwise turn by 90°: (x, y) <- (y, m - x).
 * mirrorRotateK = rotateK after mirror.
 */
const SOURCE: Record<Transform, (x: number, y: number, m: number) => [number, number]> = {
  none: (x, y) => [x, y],
  mirror: (x, y, m) => [m - x, y],
  rotate90: (x, y, m) => [y, m - x],
  rotate180: (x, y, m) => [m - x, m - y],
  rotate270: (x, y, m) => [m - y, x],
  mirrorRotate90: (x, y, m) => [m - y, m - x], // rotate90 source (y, m - x), then mirrored: (m - y, m - x)
  mirrorRotate180: (x, y, m) => [x, m - y],
  mirrorRotate270: (x, y) => [y, x],
};

/** Inverse of each symmetry: the rotations by 90° and 270° swap, every other one undoes itself. */
export const INVERSE: Record<Transform, Transform> = {
  none: 'none',
  mirror: 'mirror',
  rotate90: 'rotate270',
  rotate180: 'rotate180',
  rotate270: 'rotate90',
  mirrorRotate90: 'mirrorRotate90',
  mirrorRotate180: 'mirrorRotate180',
  mirrorRotate270: 'mirrorRotate270',
};

/** `grey` (N x N, row-major) with the symmetry applied. */
export function transformGrey(grey: Uint8Array, transform: Transform): Uint8Array {
  if (grey.length !== N * N) throw new RangeError(`transformGrey needs ${N * N} bytes, got ${grey.length}`);
  const source = SOURCE[transform];
  const out = new Uint8Array(N * N);
  for (let y = 0; y < N; y++)
    for (let x = 0; x < N; x++) {
      const [sx, sy] = source(x, y, N - 1);
      out[y * N + x] = grey[sy * N + sx];
    }
  return out;
}

/**
 * For each name, the hash a post would have if the upload were that transform of it: the upload
 * with the inverse symmetry applied, hashed.
 */
export function dihedralHashes(grey: Uint8Array, hash: (grey: Uint8Array) => string): Record<Transform, string> {
  return Object.fromEntries(TRANSFORMS.map((t) => [t, hash(transformGrey(grey, INVERSE[t]))])) as Record<
    Transform,
    string
  >;
}
