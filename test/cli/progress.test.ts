/**
 * createProgress on its own: what a log (non-TTY) and a terminal (TTY) get, how often, and the final
 * line. The clock is Date.now, replaced per test (ava runs this file's tests serially in their own
 * process), so rate limiting is checked without sleeping.
 */
import test from 'ava';
import { createProgress } from '../../src/cli/progress.ts';
import { silentProgress } from '../../src/util/progress.ts';

/** A stand-in for process.stderr that records what is written. */
function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, write: (s: string) => (writes.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, writes, text: () => writes.join('') };
}

let now = 1_000_000;
const realNow = Date.now;
test.beforeEach(() => {
  now = 1_000_000;
  Date.now = () => now;
});
test.afterEach.always(() => {
  Date.now = realNow;
});

const BAR = /^(\S+(?: \S+)?) \[([# ]{30})\] (\d+)% (\d+)\/(\d+) (\d+) (\w+)\/s$/;

test.serial('non-TTY: plain lines with label, bar, percent, count/total and rate', (t) => {
  const { stream, writes } = fakeStream(false);
  const p = createProgress('import', 40, { stream, unit: 'files' });
  now += 2000;
  p.update(10);
  t.is(writes.length, 1, 'the first update shows at once');
  t.true(writes[0].endsWith('\n'));
  t.false(writes[0].includes('\r'), 'no carriage returns in a log');
  const m = BAR.exec(writes[0].trimEnd());
  t.truthy(m, writes[0]);
  t.deepEqual(m!.slice(1), ['import', '########' + ' '.repeat(22), '25', '10', '40', '5', 'files']);
});

test.serial('non-TTY: at most one line per interval, whatever the update rate', (t) => {
  const { stream, writes } = fakeStream(false);
  const p = createProgress('rethumb', 1000, { stream });
  // 1000 updates 12 ms apart: the first, then the first one 5 s after each line (default non-TTY interval).
  for (let i = 1; i <= 1000; i++) {
    now += 12;
    p.update(i);
  }
  t.is(writes.length, 3, writes.join(''));
  t.deepEqual(
    writes.map((w) => BAR.exec(w.trimEnd())?.[4]),
    ['1', '418', '835'],
  );
  p.done();
  t.is(writes.length, 4);
  t.regex(writes[3], /^rethumb \[#{30}\] 100% 1000\/1000 83 docs\/s\n$/, 'the final state always shows');
});

test.serial('non-TTY: done() does not repeat a final state the last line already showed', (t) => {
  const { stream, writes } = fakeStream(false);
  const p = createProgress('verify posts', 12, { stream });
  now += 10;
  p.update(12);
  p.done();
  t.is(writes.length, 1, writes.join(''));
  t.regex(writes[0], /^verify posts \[#{30}\] 100% 12\/12 /);
});

test.serial('phase: named after the command, drawn at once, and the total may grow', (t) => {
  const { stream, writes } = fakeStream(false);
  const p = createProgress('reindex', 3, { stream });
  p.phase('loading');
  t.is(writes.length, 1);
  t.regex(writes[0], /^reindex loading \[ {30}\] 0% 0\/3 0 docs\/s\n$/);
  now += 1000;
  p.update(5, 5);
  t.is(writes.length, 1, 'within the interval');
  p.done();
  t.regex(writes[1], /^reindex loading \[#{30}\] 100% 5\/5 5 docs\/s\n$/);
});

test.serial('an empty job still ends on a complete line', (t) => {
  const { stream, text } = fakeStream(false);
  createProgress('import', 0, { stream }).done();
  t.regex(text(), /^import \[#{30}\] 100% 0\/0 0 docs\/s\n$/);
});

test.serial('TTY: one line redrawn in place (\\r, clear to end), 100 ms apart, newline at the end', (t) => {
  const { stream, writes, text } = fakeStream(true);
  const p = createProgress('reindex', 100, { stream });
  for (let i = 1; i <= 100; i++) {
    now += 10; // 1 s in all
    p.update(i);
  }
  t.true(writes.length >= 9 && writes.length <= 11, `${writes.length} redraws`);
  for (const w of writes) t.regex(w, /^\r.*\x1b\[K$/);
  t.false(text().includes('\n'));
  p.done();
  t.regex(writes.at(-2)!, /^\rreindex \[#{30}\] 100% 100\/100 100 docs\/s\x1b\[K$/);
  t.is(writes.at(-1), '\n');
  p.phase('next');
  t.is(writes.at(-2), '\n', 'a phase after a drawn line starts a new line');
  t.regex(writes.at(-1)!, /^\rreindex next \[/);
});

test.serial('silent, and silentProgress: no output at all', (t) => {
  const { stream, writes } = fakeStream(true);
  const p = createProgress('reindex', 10, { stream, silent: true });
  p.phase('loading');
  p.update(5);
  p.done();
  t.deepEqual(writes, []);
  t.notThrows(() => {
    silentProgress.phase('x');
    silentProgress.update(1, 2);
    silentProgress.done();
  });
});

test.serial('timeLeft (import): the time left at the rate so far, gone once done', (t) => {
  const { stream, writes } = fakeStream(false);
  const p = createProgress('import', 4000, { stream, unit: 'posts', timeLeft: true });
  now += 20_000;
  p.update(1000);
  t.is(writes[0], `import [${'#'.repeat(8)}${' '.repeat(22)}] 25% 1000/4000 50 posts/s, 1m00s left\n`);
  now += 3_600_000;
  p.update(2000);
  t.regex(writes[1], /, 1h00m left\n$/);
  p.update(4000);
  p.done();
  t.regex(writes.at(-1)!, /^import \[#{30}\] 100% 4000\/4000 \d+ posts\/s\n$/);
});
