/**
 * `imgpost es status` prints JSON always; `--json` is accepted too, so scripts can pass it to every
 * command alike. Read-only: it never starts or stops the node the other tests use.
 */
import test from 'ava';
import { imgpost } from './run-cli.ts';

test('es status and es status --json: the same parseable JSON on stdout, exit status 0', async (t) => {
  const [plain, json, bad] = await Promise.all([
    imgpost(undefined, 'es', 'status'),
    imgpost(undefined, 'es', 'status', '--json'),
    imgpost(undefined, 'es', 'status', '--nope'),
  ]);
  for (const r of [plain, json]) {
    t.is(r.code, 0, r.stderr);
    const status = JSON.parse(r.stdout);
    t.is(typeof status.running, 'boolean');
    t.regex(status.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.is(typeof status.version, 'string');
    t.is(typeof status.home, 'string');
    // The managed node the test suite runs on (`npm test` starts it first) answers.
    if (!process.env.ELASTICSEARCH_URL) {
      t.true(status.running, r.stdout);
      t.is(typeof status.pid, 'number');
      t.is(typeof status.quickStart, 'boolean', 'says how the answering node compiles');
    }
  }
  t.deepEqual(JSON.parse(json.stdout), JSON.parse(plain.stdout));
  t.is(bad.code, 2, 'other options are still usage errors');
  t.regex(bad.stderr, /unknown arguments: status --nope/);
  t.is(bad.stdout, '');
});

test('--json is for status only: es start --json is a usage error, not a start', async (t) => {
  const r = await imgpost(undefined, 'es', 'start', '--json');
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, /Usage: imgpost es/);
  t.is(r.stdout, '');
});

test('es start --quick keeps the node that answers and prints its URL; --quick twice or with --nodes is a usage error', async (t) => {
  const bad = await Promise.all([
    imgpost(undefined, 'es', 'start', '--quick', '--quick'),
    imgpost(undefined, 'es', 'start', '--quick', '--nodes', '3'),
  ]);
  t.is(bad[0].code, 2, bad[0].stderr);
  t.regex(bad[0].stderr, /unknown arguments: start --quick --quick/);
  t.is(bad[1].code, 2, bad[1].stderr);
  t.regex(bad[1].stderr, /--quick is for one node/);
  for (const r of bad) t.is(r.stdout, '');
  // Only where the suite's managed node answers: elsewhere this would start one.
  if (process.env.ELASTICSEARCH_URL) return;
  const status = JSON.parse((await imgpost(undefined, 'es', 'status')).stdout);
  const r = await imgpost(undefined, 'es', 'start', '--quick');
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, `${status.url}\n`);
  // A node started fully is not restarted, only named as such.
  t.is(/compiles fully; kept as it is/.test(r.stderr), status.quickStart === false, r.stderr);
  t.deepEqual(JSON.parse((await imgpost(undefined, 'es', 'status')).stdout).pid, status.pid, 'the same node');
});

test('es start --nodes: bad shapes are usage errors that start nothing', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--nodes', '1'], /--nodes must be 2 to 9/],
    [['--nodes', 'three'], /--nodes must be 2 to 9/],
    [['--port', '9280'], /--port needs --nodes/],
    [['--nodes', '3', '--nodes', '3'], /unknown arguments/],
    [['--nodes', '3', '--port', '80'], /--port must be a port number/],
  ];
  const results = await Promise.all(cases.map(([args]) => imgpost(undefined, 'es', 'start', ...args)));
  results.forEach((r, i) => {
    t.is(r.code, 2, `${cases[i][0].join(' ')}: ${r.stderr}`);
    t.regex(r.stderr, cases[i][1]);
    t.is(r.stdout, '');
  });
});
