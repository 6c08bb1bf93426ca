/**
 * The background loop the relay, thumbnailer, retention and webhook dispatcher run on
 * (src/util/loop.ts): passes never overlap, kicks coalesce, a kick during a pass earns one more
 * pass, a failing pass backs off (and a kick does not cut the back-off short), stop() waits for
 * the pass under way.
 */
import test from 'ava';
import type { Logger } from '../../src/log.ts';
import { Loop, type LoopOptions } from '../../src/util/loop.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for a condition (the box may be busy: no test relies on a pass taking a given time). */
async function until(cond: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(5);
}

function recorder() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, msg, fields });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, log };
}

const loop = (log: Logger, opts: Partial<LoopOptions> & Pick<LoopOptions, 'pass'>) =>
  new Loop({ intervalMs: 60_000, log, failureMessage: 'pass failed', ...opts });

test('kicks coalesce, and a kick during a pass runs one more pass after it', async (t) => {
  const { log } = recorder();
  let passes = 0;
  let inPass = 0;
  let overlapped = false;
  let release: (() => void) | undefined;
  const l = loop(log, {
    pass: async () => {
      passes++;
      overlapped ||= inPass++ > 0;
      if (passes === 2) await new Promise<void>((r) => (release = r));
      inPass--;
    },
  });
  l.start(); // the first pass, at once
  await until(() => passes === 1 && inPass === 0);
  l.kick();
  l.kick();
  l.kick();
  await until(() => release !== undefined);
  await sleep(50);
  t.is(passes, 2, 'three kicks, one pass');
  l.kick(); // during pass 2
  l.kick();
  t.true(l.due);
  release!();
  await until(() => passes === 3);
  await sleep(50);
  t.is(passes, 3, 'one more pass for the kicks during the pass');
  t.false(l.due);
  t.false(overlapped);
  await l.stop();
});

test('a pass answers the wait before the next; nothing means the interval', async (t) => {
  const { log } = recorder();
  let passes = 0;
  const l = loop(log, { intervalMs: 60_000, pass: () => (++passes < 3 ? 5 : undefined) });
  l.start();
  await until(() => passes === 3);
  await sleep(50);
  t.is(passes, 3);
  l.intervalMs = 5; // re-arms the idle wait under way
  await until(() => passes > 4);
  t.true(passes > 4);
  await l.stop();
});

test('a failing pass backs off, a kick waits out the back-off, and success resets it', async (t) => {
  const { log, lines } = recorder();
  let passes = 0;
  let failing = true;
  const l = loop(log, {
    pass: () => {
      passes++;
      if (failing) throw new Error('index down');
      return undefined;
    },
    backoffMs: () => 400,
    recoveredMessage: 'recovered',
  });
  l.start();
  await until(() => l.failures === 1);
  t.is(passes, 1);
  t.deepEqual(lines[0], {
    level: 'warn',
    msg: 'pass failed',
    fields: { failures: 1, retryInMs: 400, err: 'index down' },
  });
  const failedAt = Date.now();
  l.kick();
  failing = false;
  await until(() => passes === 2);
  t.true(Date.now() - failedAt >= 350, 'the kick does not cut the back-off short');
  t.is(l.failures, 0);
  t.is(lines.at(-1)?.msg, 'recovered');
  await l.stop();
});

test('failures are logged first and then every n-th', async (t) => {
  const { log, lines } = recorder();
  const l = loop(log, {
    pass: () => {
      throw new Error('x');
    },
    backoffMs: () => 1,
    logEveryFailures: 3,
  });
  l.start();
  await until(() => l.failures >= 6);
  await l.stop();
  const logged = lines.map((l) => l.fields?.failures as number);
  t.true(l.failures >= 6);
  t.deepEqual(
    logged,
    logged.filter((n) => n === 1 || n % 3 === 0),
  );
  t.deepEqual(logged.slice(0, 3), [1, 3, 6]);
});

test('stop() resolves once the pass under way has ended, and nothing runs after it', async (t) => {
  const { log } = recorder();
  let passes = 0;
  let ended = false;
  const l = loop(log, {
    firstDelayMs: 0,
    pass: async () => {
      passes++;
      await sleep(50);
      ended = true;
      return 0;
    },
  });
  l.start();
  await until(() => passes === 1);
  t.true(l.running);
  await l.stop();
  t.true(ended);
  t.false(l.running);
  l.kick();
  await sleep(30);
  t.is(passes, 1);
});
