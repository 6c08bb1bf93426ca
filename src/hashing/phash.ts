/**
 * 64-bit DCT perceptual hash of a 32x32 greyscale image (sharp-phash 2.x compatible).
 *
 * Hashes stored by older deployments were computed by sharp-phash, so the arithmetic here mirrors
 * its float operations in the same order (same cosine expression, same product and summation
 * order). A different but mathematically equal formulation (e.g. a separable DCT) can flip bits
 * where a coefficient is within rounding error of the mean, e.g. on flat images.
 */

const N = 32;
const LOW = 8;

/** COS[u * N + x] = cos((2x + 1) / 2N * u * pi), written exactly like sharp-phash for identical doubles. */
const COS = new Float64Array(N * N);
for (let u = 0; u < N; u++) {
  for (let x = 0; x < N; x++) COS[u * N + x] = Math.cos(((2 * x + 1) / (2.0 * N)) * u * Math.PI);
}

/**
 * @param grey 1024 bytes, row-major (index = y * 32 + x), one byte per pixel.
 * @returns 64 '0'/'1' characters: F[u][v] > mean for u = 1..8 (outer, along x) and v = 1..8 (inner, along y).
 */
export function dctHash(grey: Uint8Array): string {
  if (grey.length !== N * N)
    throw new RangeError(`dctHash needs ${N * N} bytes of 32x32 greyscale, got ${grey.length}`);
  const coeffs = new Float64Array(LOW * LOW);
  for (let u = 1; u <= LOW; u++) {
    for (let v = 1; v <= LOW; v++) {
      let sum = 0;
      for (let x = 0; x < N; x++) {
        const cu = COS[u * N + x];
        const cv = v * N;
        // (cos_u * cos_v) * f[x][y], x outer / y inner: sharp-phash's exact rounding order.
        // The serial sum bounds the speed; reassociating it would change rounding.
        for (let y = 0; y < N; y++) sum += cu * COS[cv + y] * grey[y * N + x];
      }
      // c(u) c(v) / 4 with u, v >= 1 is exactly 0.25
      coeffs[(u - 1) * LOW + (v - 1)] = sum * 0.25;
    }
  }
  let total = 0;
  for (let i = 0; i < coeffs.length; i++) total += coeffs[i];
  const avg = total / (LOW * LOW);
  let bits = '';
  for (let i = 0; i < coeffs.length; i++) bits += coeffs[i] > avg ? '1' : '0';
  return bits;
}
