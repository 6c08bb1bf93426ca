import test from 'ava';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';

let fx: SeededApp;
test.before(async () => {
  fx = await startSeededApp({ count: 80, seed: 3, users: 6 });
});
test.after.always(async () => fx?.app.close());

const search = (body: unknown, query = '') => postJson(fx.app, `/api/post/search${query}`, body);
const images = (body: unknown, query = '') => postJson(fx.app, `/image/search${query}`, body);
const text = (value: unknown) => ({ type: 'text', op: 'contains', value });

/** The spec's 400 body: an array of `{ code, expected, received, path, message }`. */
function isIssueArray(t: any, body: unknown) {
  t.true(Array.isArray(body), JSON.stringify(body));
  for (const issue of body as Record<string, unknown>[]) {
    t.deepEqual(Object.keys(issue).sort(), ['code', 'expected', 'message', 'path', 'received']);
    t.true(Array.isArray(issue.path));
  }
}

test('a number where a selector wants a string: invalid_type at [index, field]', async (t) => {
  const res = await search({ filter: [text('cat'), text(5)] });
  t.is(res.status, 400);
  isIssueArray(t, res.body);
  t.like(res.body[0], { code: 'invalid_type', expected: 'string', received: 'number', path: [1, 'value'] });
});

test('empty filter, 51 selectors, offsets, impossible dates and unknown keys are 400 issue arrays', async (t) => {
  const cases: [string, unknown, (string | number)[]][] = [
    ['empty filter', { filter: [] }, ['filter']],
    ['51 selectors', { filter: Array.from({ length: 51 }, () => text('a')) }, ['filter']],
    [
      'timezone offset',
      { filter: [{ type: 'createdAt', op: 'gt', value: '2024-05-01T10:00:00+02:00' }] },
      [0, 'value'],
    ],
    [
      'fraction of a second',
      { filter: [{ type: 'createdAt', op: 'gt', value: '2024-05-01T10:00:00.000Z' }] },
      [0, 'value'],
    ],
    ['2024-02-30', { filter: [{ type: 'updatedAt', op: 'eq', value: '2024-02-30' }] }, [0, 'value']],
    ['hour 24', { filter: [{ type: 'createdAt', op: 'eq', value: '2024-02-03T24:00:00Z' }] }, [0, 'value']],
    ['unknown top-level key', { filter: [text('a')], sort: [] }, []],
    ['unknown selector key', { filter: [{ ...text('a'), extra: 1 }] }, [0]],
    ['unknown selector type', { filter: [{ type: 'colour', op: 'eq', value: 'red' }] }, [0, 'type']],
    ['unknown op', { filter: [{ type: 'tag', op: 'contains', value: 'x' }] }, [0, 'op']],
    ['bad rating', { filter: [{ type: 'rating', value: 'violet' }] }, [0, 'value']],
    ['prototype name as rating', { filter: [{ type: 'rating', value: 'constructor' }] }, [0, 'value']],
    ['4 order items', { order: Array.from({ length: 4 }, () => ({ key: 'id' })) }, ['order']],
    ['unknown order key', { order: [{ key: 'text' }] }, ['order', 0, 'key']],
    ['body not an object', [text('a')], []],
  ];
  for (const [label, body, path] of cases) {
    const res = await search(body);
    t.is(res.status, 400, label);
    isIssueArray(t, res.body);
    t.deepEqual(res.body[0].path, path, label);
  }
  t.is(
    (await search({ filter: [{ type: 'createdAt', op: 'eq', value: '2024-02-29' }] })).status,
    200,
    'a leap day exists',
  );
  t.is((await search({ filter: Array.from({ length: 50 }, () => text('a')) })).status, 200, '50 selectors are fine');
});

test('offset and limit: defaults, the 1000 cap and 400s', async (t) => {
  const all = await search(undefined);
  t.is(all.status, 200);
  t.is(all.body.count, 80);
  t.is(all.body.data.length, 24);
  t.is((await search({}, '?limit=5000')).body.data.length, 80);
  t.is((await search({}, '?limit=0')).body.data.length, 0);
  const last = await search({}, '?offset=79');
  t.is(last.body.count, 80);
  t.is(last.body.data.length, 1);
  t.is((await search({}, '?offset=500')).body.data.length, 0);
  for (const q of ['?offset=-1', '?limit=-1', '?limit=1.5', '?offset=abc', '?limit=']) {
    const res = await search({}, q);
    t.is(res.status, 400, q);
    isIssueArray(t, res.body);
  }
  const malformed = await fx.app.request('/api/post/search', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"filter": [',
  });
  t.is(malformed.status, 400);
});

test('/image/search: 400 as { error } for 51 conditions, unknown types, empty values, limit=0 and offset=-1', async (t) => {
  const cases: [string, unknown, string][] = [
    ['51 conditions', { conditions: Array.from({ length: 51 }, () => ({ type: 'tagInclude', value: 'x' })) }, ''],
    ['unknown type', { conditions: [{ type: 'colourIs', value: 'red' }] }, ''],
    ['empty value', { conditions: [{ type: 'textContains', value: '   ' }] }, ''],
    ['bad rating', { conditions: [{ type: 'ratingEq', value: 'spicy' }] }, ''],
    // Names Object.prototype carries: a lookup by the request's value must not find them (a fuzz 500).
    ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((value): [string, unknown, string] => [
      `rating ${value}`,
      { conditions: [{ type: 'ratingEq', value }] },
      '',
    ]),
    ['non-string value', { conditions: [{ type: 'tagInclude', value: 3 }] }, ''],
    ['limit=0', { conditions: [] }, '?limit=0'],
    ['offset=-1', { conditions: [] }, '?offset=-1'],
  ];
  for (const [label, body, query] of cases) {
    const res = await images(body, query);
    t.is(res.status, 400, label);
    t.deepEqual(Object.keys(res.body), ['error'], label);
    t.is(typeof res.body.error, 'string', label);
  }
  t.is(
    (await images({ conditions: Array.from({ length: 50 }, () => ({ type: 'textContains', value: 'a' })) })).status,
    200,
  );
});

test('/image/search: limit above 24 gives 24; bad order values fall back to uploadDate desc', async (t) => {
  const res = await images({ conditions: [], orderBy: 'colour', order: 'sideways' }, '?limit=100');
  t.is(res.status, 200);
  t.is(res.body.error, null);
  t.is(res.body.data.total, 80);
  t.is(res.body.data.images.length, 24);
  const explicit = await images({ conditions: [], orderBy: 'uploadDate', order: 'desc' }, '?limit=24');
  t.deepEqual(res.body.data.images, explicit.body.data.images);
  t.is((await images(undefined)).body.data.images.length, 24);
});

test('/image/search: uploadedBy by name in any case or by id, ratingEq accepts the payload spelling', async (t) => {
  const user = fx.seed.users.find((u) => fx.posts().some((p) => p.uploaderId === u.id))!;
  const owned = fx.posts().filter((p) => p.uploaderId === user.id).length;
  for (const value of [user.name, user.name.toUpperCase(), ` ${user.id} `]) {
    const res = await images({ conditions: [{ type: 'uploadedBy', value }] });
    t.is(res.body.data.total, owned, value);
  }
  const violent = fx.posts().filter((p) => p.rating === 'violent').length;
  t.is((await images({ conditions: [{ type: 'ratingEq', value: 'violet' }] })).body.data.total, violent);
});
