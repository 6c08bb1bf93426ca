/**
 * bench/RESULTS.md is written by bench/dashboard.ts from the data files alone: it must equal what the
 * renderer makes of them (an edit by hand, or data committed without rewriting it, fails here), each
 * figure shows the latest run that measured it, and it holds no path of the box a run was made on.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { collectRows, latest, parseMissNotes, renderDashboard, type DashboardRow } from '../../bench/dashboard.ts';
import { ROOT } from '../../bench/lib/env.ts';

const BENCH = path.join(ROOT, 'bench');
const read = (file: string) => fs.readFileSync(path.join(BENCH, file), 'utf8');

test('bench/RESULTS.md is the rendering of the data (npx tsx bench/dashboard.ts rewrites it)', (t) => {
  const expected = renderDashboard(collectRows(BENCH), parseMissNotes(read('notes/misses.md')));
  t.is(read('RESULTS.md'), expected);
});

test('the dashboard opens with the table and names no machine paths', (t) => {
  const md = read('RESULTS.md');
  const firstTable = md.split('\n').findIndex((l) => l.startsWith('|'));
  const header = /^\| figure \| ours \| anchor in the same run \| ratio \| goal \| met\? \| date \| commit \|$/;
  t.regex(md.split('\n')[firstTable], header);
  t.notRegex(md, /(^|[\s(`'"])\/(work|tmp|home|root)\//m);
  for (const f of fs.readdirSync(path.join(BENCH, 'notes')).filter((f) => f.endsWith('.md')))
    t.notRegex(read(path.join('notes', f)), /(^|[\s(`'"=])\/(work|tmp|home|root)\//m, f);
});

const row = (key: string, date: string, ours: string): DashboardRow => ({
  key,
  figure: key,
  ours,
  anchor: '—',
  ratio: '—',
  goal: '—',
  met: 'none',
  date,
  commit: 'abc1234',
});

test('a figure shows the latest run that measured it, at its first place', (t) => {
  const rows = latest([
    row('facets@1M', '2026-11-25T06:17:18Z', 'old'),
    row('x', '2026-11-20T00:00:00Z', 'x'),
    row('facets@1M', '2026-11-26T03:27:00Z', 'new'),
    row('facets@1M', '2026-11-24T00:00:00Z', 'older'),
  ]);
  t.deepEqual(
    rows.map((r) => [r.key, r.ours]),
    [
      ['facets@1M', 'new'],
      ['x', 'x'],
    ],
  );
});

test('the notes on misses are read by key, and only missed figures are shown', (t) => {
  const notes = parseMissNotes('# t\n\n- `a@1M`, `b`: one\n  two\n- `c`: three\n');
  t.is(notes.get('a@1M'), 'one two');
  t.is(notes.get('b'), 'one two');
  t.is(notes.get('c'), 'three');
  const rows: DashboardRow[] = [
    { ...row('a@1M', '2026-11-26T00:00:00Z', '1'), met: 'missed' },
    { ...row('c', '2026-11-26T00:00:00Z', '2'), met: 'met' },
  ];
  const md = renderDashboard(rows, notes);
  t.regex(md, /\*\*a@1M\*\* \(`a@1M`\): one two/);
  t.notRegex(md, /three/);
});
