import test from 'ava';
import {
  checkUrlOnSave,
  checkUrlShape,
  classifyAddress,
  createTargetAgents,
  filteringLookup,
  ForbiddenTargetError,
  type Resolver,
} from '../../src/webhooks/ssrf.ts';
import { postWebhook } from '../../src/webhooks/send.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { eventually, loopbackHostsName, sleep, startReceiver } from './receiver.ts';

const fixed =
  (table: Record<string, string[]>): Resolver =>
  async (name) => {
    const found = table[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

test('address classification: private, reserved and embedded IPv4 forms are refused', (t) => {
  const refused = [
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '198.18.0.1',
    '192.0.0.8',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.1.2.3',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2002:c0a8:0101::1',
    '2001:db8::1',
    '2001::1',
    '[::1]',
  ];
  for (const a of refused) t.truthy(classifyAddress(a), a);
  for (const a of [
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])
    t.is(classifyAddress(a), undefined, a);
  t.is(classifyAddress('example.com'), 'not an IP address');
});

test('URL shape: numeric host spellings are normalised and refused; scheme and credentials checked', (t) => {
  for (const url of [
    'http://127.0.0.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://017700000001/',
    'http://127.1/',
    'http://0x7f.1/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'ftp://8.8.8.8/',
    'http://u:p@8.8.8.8/',
    'file:///etc/passwd',
    'javascript:alert(1)',
  ])
    t.throws(() => checkUrlShape(url, false), { instanceOf: ForbiddenTargetError }, url);
  t.is(checkUrlShape('https://8.8.8.8:8443/x?y=1', false).href, 'https://8.8.8.8:8443/x?y=1');
  t.is(
    checkUrlShape('http://127.0.0.1:3000/', true).hostname,
    '127.0.0.1',
    'WEBHOOK_ALLOW_PRIVATE lets loopback through',
  );
  t.throws(
    () => checkUrlShape('http://u:p@127.0.0.1/', true),
    { instanceOf: ForbiddenTargetError },
    'credentials are refused even then',
  );
});

test('save-time check: every resolved address must be public', async (t) => {
  const resolver = fixed({
    'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.test': ['93.184.215.14', '10.0.0.5'],
    'v6.test': ['fd00::2'],
  });
  t.is((await checkUrlOnSave('https://public.test/hook', { allowPrivate: false, resolver })).hostname, 'public.test');
  for (const url of ['http://mixed.test/', 'http://v6.test/', 'http://missing.test/'])
    await t.throwsAsync(
      checkUrlOnSave(url, { allowPrivate: false, resolver }),
      { instanceOf: ForbiddenTargetError },
      url,
    );
  await t.notThrowsAsync(checkUrlOnSave('http://v6.test/', { allowPrivate: true, resolver }));
});

test('connect-time lookup refuses private answers, whatever the name resolved to before (DNS rebinding)', async (t) => {
  // First answer public (the save passes), every later one loopback.
  let calls = 0;
  const rebinding: Resolver = async () =>
    calls++ === 0 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
  await checkUrlOnSave('http://rebind.test/', { allowPrivate: false, resolver: rebinding });
  const lookup = filteringLookup(rebinding);
  const err = await new Promise<Error | null>((resolve) => lookup('rebind.test', { all: true }, (e) => resolve(e)));
  t.true(err instanceof ForbiddenTargetError);
  t.regex(err!.message, /127\.0\.0\.1.*loopback/);
  // Both callback forms Node uses are served.
  const ok = filteringLookup(fixed({ 'a.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }));
  t.deepEqual(await new Promise((resolve) => ok('a.test', { all: true }, (e, a) => resolve(a))), [
    { address: '93.184.215.14', family: 4 },
    { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
  ]);
  t.deepEqual(await new Promise((resolve) => ok('a.test', { family: 6 }, (e, a, f) => resolve([a, f]))), [
    '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    6,
  ]);
});

test('the delivery connections never reach a name that resolves to loopback, over http or https', async (t) => {
  const receiver = await startReceiver(200);
  t.teardown(() => receiver.close());
  let allowPrivate = false;
  const agents = createTargetAgents({
    allowPrivate: () => allowPrivate,
    resolver: fixed({ 'hook.test': ['127.0.0.1'] }),
  });
  t.teardown(() => agents.destroy());
  const signal = new AbortController().signal;
  const post = (raw: string) => {
    const url = new URL(raw);
    return postWebhook(url, { body: '{}', headers: {}, agent: agents.forUrl(url), timeoutMs: 5000, signal }).catch(
      (err: Error) => err,
    );
  };
  for (const scheme of ['http', 'https']) {
    const refused = await post(`${scheme}://hook.test:${receiver.port}/hook`);
    t.true(refused instanceof ForbiddenTargetError, `${scheme}: ${String(refused)}`);
  }
  await sleep(50);
  t.is(receiver.received.length, 0);
  t.is(receiver.connections, 0);
  allowPrivate = true; // the unfiltered connections use the system resolver, which does not know hook.test
  t.true((await post(`http://hook.test:${receiver.port}/hook`)) instanceof Error);
  t.is(await post(`http://127.0.0.1:${receiver.port}/hook`), 200);
});

test.serial('with WEBHOOK_ALLOW_PRIVATE off, private targets are refused on save and at send time', async (t) => {
  const app: TestApp = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '0' });
  t.teardown(() => app.close());
  app.services.webhookDispatcher.configure({ retryDelaysMs: [20], timeoutMs: 2000, pollMs: 100 });
  const user: TestUser = await createUser(app, 0x2);
  const save = (url: string) =>
    app.request('/api/webhook', {
      method: 'POST',
      headers: { ...user.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url, secret: 's', events: ['create'] }),
    });

  const hostsName = loopbackHostsName();
  if (!hostsName)
    t.log('no non-localhost loopback name in /etc/hosts; that case is covered by the injected-resolver tests');
  const refused = [
    'http://127.0.0.1/',
    'http://localhost/',
    'http://localhost./',
    'http://[::1]/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://017700000001/',
    'http://127.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://0.0.0.0/',
    'http://192.168.0.10:8080/',
    'http://172.16.5.4/',
    ...(hostsName ? [`http://${hostsName}/`, `http://${hostsName}.:8080/`] : []),
  ];
  for (const url of refused) {
    const res = await save(url);
    t.is(res.status, 400, url);
    const issues = await res.json();
    t.deepEqual(issues[0].path, ['url'], url);
  }
  t.is((await save('http://8.8.8.8/hook')).status, 201, 'a public address is fine (nothing is sent to it here)');
  await app.request('/api/webhook', { headers: user.headers }).then(async (r) => {
    for (const h of await r.json())
      await app.request(`/api/webhook/${h.id}`, { method: 'DELETE', headers: user.headers });
  });

  // Saved while allowed, sent after the policy is back on: refused at connect time, not sent.
  const receiver = await startReceiver(200);
  t.teardown(() => receiver.close());
  app.services.config.webhookAllowPrivate = true;
  const names = ['127.0.0.1', 'localhost', ...(hostsName ? [hostsName] : [])];
  const ids: string[] = [];
  for (const name of names) {
    const res = await save(`http://${name}:${receiver.port}/hook`);
    t.is(res.status, 201, name);
    ids.push((await res.json()).id);
  }
  app.services.config.webhookAllowPrivate = false;
  const post = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(5150) }),
  });
  t.is(post.status, 201);
  for (const [i, id] of ids.entries()) {
    const rec = await eventually(async () => {
      const r = await (await app.request(`/api/webhook/${id}`, { headers: user.headers })).json();
      return r.state === 'suspended' && r;
    });
    t.is(rec.failureCount, 3, names[i]);
    const attempts = await (await app.request(`/api/webhook/${id}/deliveries`, { headers: user.headers })).json();
    t.is(attempts.length, 3, names[i]);
    for (const a of attempts) t.regex(a.error, /^refused: .*(loopback|local machine)/, names[i]);
  }
  t.is(receiver.received.length, 0, 'nothing reached the loopback receiver');
});
