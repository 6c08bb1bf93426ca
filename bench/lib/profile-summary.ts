/**
 * `npx tsx bench/lib/profile-summary.ts FILE.cpuprofile [--top 25]`: where a V8 CPU profile (node
 * --cpu-prof) spent its samples, by self time: per area (our src/, each node_modules package, Node's
 * internals, garbage collection, idle) and the top functions. Used for the "what bounds it" notes.
 */
import fs from 'node:fs';
import { headerOf, isMain, parseCli } from './cli.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const src = /\/(src|workers)\/([^/]+)/.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  return url;
}

export function summarize(file: string, top = 25): string {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++)
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self]
    .filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)')
    .reduce((a, [, t]) => a + t, 0);
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, t] of self) {
    const f = byId.get(id)!.callFrame;
    const a = area(f.url, f.functionName);
    areas.set(a, (areas.get(a) ?? 0) + t);
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|src|workers)\//, '$1/')}:${f.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + t);
  }
  const busy = total - idle;
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1)} %`;
  const lines = [
    `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (shares below are of busy time)`,
    '',
    'By area:',
  ];
  for (const [a, t] of [...areas]
    .filter(([a]) => a !== '(idle)')
    .sort((x, y) => y[1] - x[1])
    .slice(0, top))
    lines.push(`  ${pct(t).padStart(7)}  ${a}`);
  lines.push('', 'Top functions (self):');
  for (const [f, t] of [...fns]
    .filter(([f]) => !f.startsWith('(idle)'))
    .sort((x, y) => y[1] - x[1])
    .slice(0, top))
    lines.push(`  ${pct(t).padStart(7)}  ${f}`);
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const { values, positionals } = parseCli({
    usage: headerOf(import.meta.url),
    positionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  for (const f of positionals) process.stdout.write(`${summarize(f, Number(values.top))}\n\n`);
}
