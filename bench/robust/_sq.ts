import Database from 'better-sqlite3';
import { decodeDescriptor } from '../../src/hashing/robust/format.ts';
const db = new Database('/work/rl-keep/imgpost.sqlite', { readonly: true });
const seqsOf = Array.from({ length: 100 }, (_, i) => { const s = new Set<number>(); let x = i * 7919 + 1; while (s.size < 1000) { x = (x * 1103515245 + 12345) % 2147483648; s.add(1 + (x % 1000000)); } return [...s]; });
const A = db.prepare('SELECT seq, robust FROM posts WHERE robust IS NOT NULL AND seq IN (SELECT value FROM json_each(?))');
const C = db.prepare('SELECT robust FROM posts WHERE seq = ?').pluck();
const E = db.prepare('SELECT seq, robust FROM posts WHERE robust IS NOT NULL AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq');
const variants: Record<string, (s: number[]) => number> = {
  json: (s) => A.all(JSON.stringify(s)).length,
  jsonSorted: (s) => A.all(JSON.stringify([...s].sort((a, b) => a - b))).length,
  loop: (s) => { let n = 0; for (const q of s) if (C.get(q)) n++; return n; },
  loopSorted: (s) => { let n = 0; for (const q of [...s].sort((a, b) => a - b)) if (C.get(q)) n++; return n; },
  raw: (s) => { A.raw(true); const n = A.all(JSON.stringify(s)).length; A.raw(false); return n; },
  decode: (s) => { let n = 0; for (const r of A.all(JSON.stringify(s)) as { robust: Buffer }[]) if (decodeDescriptor(r.robust)) n++; return n; },
};
const t: Record<string, number[]> = {};
for (let round = 0; round < 5; round++)
  for (const [k, f] of Object.entries(variants)) {
    for (const s of seqsOf) { const t0 = performance.now(); f(s); (t[k] ??= []).push(performance.now() - t0); }
  }
for (const [k, v] of Object.entries(t)) { const w = v.slice(200).sort((a, b) => a - b); console.log(k.padEnd(12), 'p50', w[w.length >> 1].toFixed(2), 'p90', w[Math.floor(w.length * 0.9)].toFixed(2)); }
