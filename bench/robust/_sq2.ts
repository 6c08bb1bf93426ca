import Database from 'better-sqlite3';
const mk = (p: string[]) => { const db = new Database('/work/rl-keep/imgpost.sqlite', { readonly: true }); for (const x of p) db.pragma(x); return db.prepare('SELECT seq, robust FROM posts WHERE robust IS NOT NULL AND seq IN (SELECT value FROM json_each(?))'); };
const seqsOf = Array.from({ length: 100 }, (_, i) => { const s = new Set<number>(); let x = i * 7919 + 1; while (s.size < 1000) { x = (x * 1103515245 + 12345) % 2147483648; s.add(1 + (x % 1000000)); } return [...s]; });
const variants: Record<string, ReturnType<typeof mk>> = { plain: mk([]), mmap: mk(['mmap_size = 4294967296']), cache64: mk(['cache_size = -65536']), cache16: mk(['cache_size = -16384']) };
const t: Record<string, number[]> = {};
for (let round = 0; round < 6; round++)
  for (const [k, st] of Object.entries(variants)) for (const s of seqsOf) { const t0 = performance.now(); st.all(JSON.stringify(s)); (t[k] ??= []).push(performance.now() - t0); }
for (const [k, v] of Object.entries(t)) { const w = v.slice(200).sort((a, b) => a - b); console.log(k.padEnd(12), 'p50', w[w.length >> 1].toFixed(2), 'p90', w[Math.floor(w.length * 0.9)].toFixed(2)); }
