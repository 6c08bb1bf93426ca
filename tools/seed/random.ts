/**
 * A tiny seeded PRNG (sfc32, seeded through splitmix32) so seeded data and randomised tests are
 * reproducible from one number: Math.random cannot be seeded.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t >>> 0;
  }

  /** [0, 1) */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Picks by weight: `[[value, weight], ...]`. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [value, w] of entries) if ((r -= w) < 0) return value;
    return entries[entries.length - 1][0];
  }

  /** Index in [0, n) skewed towards 0 (a few names are very common, most rare). */
  skewed(n: number, power = 2.5): number {
    return Math.min(n - 1, Math.floor(n * this.next() ** power));
  }

  hex(chars: number): string {
    let out = '';
    while (out.length < chars) out += this.uint32().toString(16).padStart(8, '0');
    return out.slice(0, chars);
  }

  /** 64 random bits as a '0'/'1' string. */
  bits64(): string {
    return this.uint32().toString(2).padStart(32, '0') + this.uint32().toString(2).padStart(32, '0');
  }

  /** `hash` with exactly `n` distinct bits flipped. */
  flipBits(hash: string, n: number): string {
    const chars = hash.split('');
    const positions = new Set<number>();
    while (positions.size < n) positions.add(this.int(0, chars.length - 1));
    for (const p of positions) chars[p] = chars[p] === '0' ? '1' : '0';
    return chars.join('');
  }
}
