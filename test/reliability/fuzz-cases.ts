/**
 * fast-check arbitraries for hostile requests against every route the routers declare. Every case
 * is built so the service must refuse it (or, for reads, answer without changing anything): writes
 * to existing posts always carry a definite defect, deletes only name posts that do not exist, and
 * the fuzz user already has the maximum of webhooks. The fuzz test then checks that the stored
 * state did not change, which catches any case that slipped through anyway.
 */
import zlib from 'node:zlib';
import fc from 'fast-check';
import type { RawRequest } from './raw-http.ts';
import {
  badUtf8Json,
  brokenJson,
  copiesOfRealImage,
  deepJson,
  hostileStrings,
  hostileValue,
  json,
  junkImages,
  multipartBody,
  pngZeroBomb,
  type Part,
} from './fuzz-data.ts';

/**
 * A string as one URL path segment. encodeURIComponent throws on a lone surrogate (one of the hostile
 * strings), which failed the whole run in the generator; such a string goes out as its UTF-8 bytes.
 */
const pathSegment = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return Buffer.from(s, 'utf8').toString('hex').replace(/../g, '%$&');
  }
};

export interface FuzzContext {
  key: string;
  cookie: string;
  expiredCookie: string;
  postIds: string[];
  postSeqs: number[];
  images: string[];
  ownWebhooks: string[];
  otherWebhooks: string[];
  /** the bytes of an existing post's image: uploading them again is a 409 */
  duplicatePng: Buffer;
}

type Auth =
  | 'valid'
  | 'cookie'
  | 'none'
  | 'badKey'
  | 'emptyKey'
  | 'twoKeys'
  | 'binaryKey'
  | 'badCookie'
  | 'expiredCookie'
  | 'badKeyGoodCookie';
const authArb: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Auth>('valid') },
  { weight: 2, arbitrary: fc.constant<Auth>('cookie') },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Auth>(
      'none',
      'badKey',
      'emptyKey',
      'twoKeys',
      'binaryKey',
      'badCookie',
      'expiredCookie',
      'badKeyGoodCookie',
    ),
  },
);

function authHeaders(ctx: FuzzContext, auth: Auth): [string, string][] {
  const cookie = (v: string): [string, string] => ['Cookie', `nmsl_cookie=${v}`];
  switch (auth) {
    case 'valid':
      return [['X-Access-Key', ctx.key]];
    case 'cookie':
      return [cookie(ctx.cookie)];
    case 'none':
      return [];
    case 'badKey':
      return [['X-Access-Key', ctx.key.slice(0, -1) + (ctx.key.endsWith('A') ? 'B' : 'A')]];
    case 'emptyKey':
      return [['X-Access-Key', '']];
    case 'twoKeys':
      return [
        ['X-Access-Key', ctx.key],
        ['X-Access-Key', ctx.key],
      ];
    case 'binaryKey':
      return [['X-Access-Key', '\xff\xfe\x80key\x01']];
    case 'badCookie':
      return [cookie(ctx.cookie.slice(0, 20) + 'AAAA' + ctx.cookie.slice(24))];
    case 'expiredCookie':
      return [cookie(ctx.expiredCookie)];
    case 'badKeyGoodCookie':
      return [['X-Access-Key', 'nope'], cookie(ctx.cookie)];
  }
}

/** How the body is framed: most are honest; the rest lie about or conflict on its length. */
type Framing = 'exact' | 'chunked' | 'none' | 'long' | 'short' | 'double' | 'te+cl' | 'expect';
const framingArb: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 14, arbitrary: fc.constant<Framing>('exact') },
  { weight: 1, arbitrary: fc.constantFrom<Framing>('chunked', 'none', 'long', 'short', 'double', 'te+cl', 'expect') },
);

interface Spec {
  label: string;
  method: string;
  target: string;
  auth?: Auth;
  type?: string | null;
  body?: Buffer;
  framing?: Framing;
  extra?: [string, string][];
}

function build(ctx: FuzzContext, s: Spec): RawRequest {
  const headers: [string, string][] = [
    ['Host', '127.0.0.1'],
    ['Connection', 'close'],
    ...authHeaders(ctx, s.auth ?? 'valid'),
  ];
  if (s.type) headers.push(['Content-Type', s.type]);
  headers.push(...(s.extra ?? []));
  const req: RawRequest = { label: s.label, method: s.method, target: s.target, headers };
  const body = s.body;
  if (!body) return req;
  const len = body.length;
  switch (s.framing ?? 'exact') {
    case 'exact':
      headers.push(['Content-Length', String(len)]);
      req.body = body;
      break;
    case 'expect':
      headers.push(['Content-Length', String(len)], ['Expect', '100-continue']);
      req.body = body;
      break;
    case 'chunked': {
      const mid = len >> 1;
      const chunk = (b: Buffer) =>
        b.length ? [Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')] : [];
      headers.push(['Transfer-Encoding', 'chunked']);
      req.body = Buffer.concat([
        ...chunk(body.subarray(0, mid)),
        ...chunk(body.subarray(mid)),
        Buffer.from('0\r\n\r\n'),
      ]);
      break;
    }
    case 'none':
      req.body = body;
      req.mayClose = true;
      break;
    case 'long':
      headers.push(['Content-Length', String(len + 1 + (len % 977))]);
      req.body = body;
      req.mayClose = true;
      break;
    case 'short':
      headers.push(['Content-Length', String(len >> 1)]);
      req.body = body;
      break;
    case 'double':
      headers.push(['Content-Length', String(len)], ['Content-Length', String(len + 1)]);
      req.body = body;
      break;
    case 'te+cl':
      headers.push(['Content-Length', String(len)], ['Transfer-Encoding', 'chunked']);
      req.body = body;
      req.mayClose = true;
      break;
  }
  return req;
}

// ---- pieces shared by families ----------------------------------------------------------------

const NO_POST = '01234567-89ab-7def-8123-456789abcdef';
const idTricks = [
  '0',
  '-1',
  '1.5',
  '99999999999999999999',
  '9007199254740993',
  'null',
  'undefined',
  '%00',
  'a%00b',
  '..',
  '%2e%2e',
  '..%2f..%2fimgpost.sqlite',
  '%2F',
  'x%2Fy',
  '%252e%252e%252f',
  '%c0%af',
  '%ff',
  '%E0%A4%A',
  '%',
  '%%',
  'ÿ',
  '%F0%9F%98%80',
  NO_POST.toUpperCase(),
  `${NO_POST}%20`,
  `${NO_POST}.png`,
  '{{7*7}}',
  "1' OR '1'='1",
  'a'.repeat(3000),
  '%u002e',
  '\\..\\..\\',
  '.%00.',
  ';',
  'search',
  'similar',
  'preview',
];

const missingId = fc.oneof(
  fc.constantFrom(...idTricks),
  fc.uuid(),
  fc.constant(NO_POST),
  fc.integer({ min: 100_000, max: 2 ** 40 }).map(String),
);
const jsonType = fc.oneof(
  { weight: 10, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json;;',
      'application/vnd.api+json',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      null,
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      '*/*',
      'application/*',
      ';',
      'application/json\x00',
      'text/html; charset=\xff',
    ),
  },
);

/** A JSON body: structured near-miss, random JSON, broken JSON, hostile bytes or deep nesting. */
const bodyFrom = (structured: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: structured.map(json) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(json) },
    { weight: 2, arbitrary: brokenJson },
    { weight: 1, arbitrary: badUtf8Json },
    { weight: 1, arbitrary: deepJson },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.alloc(0),
        Buffer.from('   '),
        Buffer.from('null'),
        Buffer.from('""'),
        Buffer.from('[]'),
        Buffer.from('0'),
        Buffer.alloc(2_000_000, 0x20),
      ),
    },
  );

/** An object with some of `fields` (hostile or plausible values) and sometimes unknown ones. */
const objectOf = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fc.oneof(v, hostileValue)])), {
        requiredKeys: [],
      }),
      fc.option(
        fc.dictionary(fc.constantFrom('extra', '__proto__', 'constructor', 'Text', 'text ', ''), hostileValue, {
          maxKeys: 2,
        }),
        { nil: undefined },
      ),
    )
    .map(([o, extra]) => ({ ...o, ...(extra ?? {}) }));

const queryArb = (names: string[]) =>
  fc
    .array(
      fc.tuple(
        fc.constantFrom(...names, 'x', ''),
        fc.constantFrom(
          '0',
          '1',
          '-1',
          '24',
          '25',
          '1000',
          '1001',
          '1.5',
          '1e3',
          '',
          ' 1',
          '0x10',
          '١',
          '9007199254740991',
          '9007199254740993',
          '99999999999999999999',
          '2147483648',
          'abc',
          '%00',
          '%ff',
          '%',
          '[]',
        ),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => (pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&') : ''));

const metadataArb = objectOf({
  text: fc.string({ maxLength: 30 }),
  tags: fc.array(fc.constantFrom(...hostileStrings), { maxLength: 70 }),
  rating: fc.constantFrom('none', 'moderate', 'violent', 'violet', 'NONE'),
});

/** Definitely not a valid metadata edit: so an existing post can be targeted without changing it. */
const invalidMetadata = fc.oneof(
  metadataArb.map((m) => ({ ...m, __fuzz: 1 })),
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((v) => typeof v !== 'string')
    .map((v) => ({ text: v, rating: 'spicy' })),
  fc.constantFrom(...hostileStrings).map((t) => ({ tags: [t, ' ', ''] })),
);

// ---- families ---------------------------------------------------------------------------------

export function families(ctx: FuzzContext): { weight: number; arbitrary: fc.Arbitrary<RawRequest> }[] {
  const existing = fc.constantFrom(...ctx.postIds, ...ctx.postSeqs.map(String));
  const b = (s: fc.Arbitrary<Spec>) => s.map((spec) => build(ctx, spec));

  const login = b(
    fc
      .record({
        body: bodyFrom(
          objectOf({
            username: fc.constantFrom('nobody', 'fuzzer', 'seeduser1', 'a'),
            password: fc.constantFrom('correct horse battery', 'x'),
            ttl: fc.integer(),
          }),
        ),
        type: jsonType,
        framing: framingArb,
        auth: fc.constantFrom<Auth>('none', 'badKey', 'valid'),
      })
      .map((r) => ({ ...r, label: 'login', method: 'POST', target: '/api/account/login' })),
  );

  // reset-key with a valid credential would change the fuzz user's key: only refused callers here.
  const account = b(
    fc
      .record({
        path: fc.constantFrom(
          '/api/account',
          '/api/account/',
          '/api/account/reset-key',
          '/api/account/reset-key?x=%ff',
          '/api/account/%2e%2e',
        ),
        auth: authArb,
      })
      .map(({ path, auth }) => ({
        label: 'account',
        method: 'GET',
        target: path,
        auth:
          path.includes('reset-key') && (auth === 'valid' || auth === 'cookie' || auth === 'twoKeys') ? 'badKey' : auth,
      })),
  );

  const list = b(
    fc
      .record({ q: queryArb(['offset', 'limit', 'offset', 'limit']), auth: authArb })
      .map(({ q, auth }) => ({ label: 'list', method: 'GET', target: `/api/post/${q}`, auth })),
  );

  const getPost = b(
    fc
      .record({ id: fc.oneof(missingId, existing), auth: authArb, q: queryArb(['x']) })
      .map(({ id, auth, q }) => ({ label: 'get', method: 'GET', target: `/api/post/${id}${q}`, auth })),
  );

  const mediaName = fc.oneof(
    fc.constantFrom(...ctx.images),
    fc.constantFrom(...ctx.images).map((i) => i.replace('.', '%2e')),
    fc.constantFrom(...ctx.images).map((i) => `${i}%00.png`),
    fc.constantFrom(...ctx.images).map((i) => `..%2F${i.slice(-6, -4)}%2F${i}`),
    fc.constantFrom(...ctx.images).map((i) => i.toUpperCase()),
    fc.constantFrom(
      '..',
      '../',
      '..%2f..%2fimgpost.sqlite',
      '%2e%2e%2f%2e%2e%2fsession-secret',
      '....//....//etc/passwd',
      '..%5c..%5c',
      '%252e%252e%252f',
      '%c0%ae%c0%ae/',
      'images/../imgpost.sqlite',
      '.',
      '%00',
      'x.png%00',
      '%2F%2F',
      '%ff%fe',
      '%E0%A4%A',
      'a'.repeat(5000) + '.png',
      `${NO_POST}.png`,
      `${NO_POST}.svg`,
      'tmp',
      '../tmp/',
    ),
  );
  const range = fc.constantFrom(
    'bytes=0-0',
    'bytes=-0',
    'bytes=0-',
    'bytes=-1',
    'bytes=5-1',
    'bytes=0-99999999999999999999',
    'bytes=99999999999999999999-',
    'bytes=0-1,2-3',
    'bytes=--1',
    'bytes=a-b',
    'items=0-1',
    'bytes=' + '0-1,'.repeat(2000),
    'bytes=1e3-',
  );
  const media = b(
    fc
      .record({
        name: mediaName,
        auth: authArb,
        range: fc.option(range, { nil: undefined }),
        inm: fc.option(fc.constantFrom('*', '"x"', 'W/"y"', '"' + 'a'.repeat(4000) + '"'), { nil: undefined }),
        method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'DELETE'),
      })
      .map(({ name, auth, range: r, inm, method }) => ({
        label: 'media',
        method,
        target: `/media/${name}`,
        auth,
        extra: [
          ...(r ? [['Range', r] as [string, string]] : []),
          ...(inm ? [['If-None-Match', inm] as [string, string], ['If-Range', inm] as [string, string]] : []),
        ],
      })),
  );

  const edit = b(
    fc
      .oneof(
        fc.record({
          id: missingId,
          body: bodyFrom(metadataArb),
          type: jsonType,
          framing: framingArb,
          auth: authArb,
          method: fc.constantFrom('PUT', 'PATCH'),
        }),
        // Existing posts only with a body that cannot be a valid edit.
        fc.record({
          id: existing,
          body: fc.oneof(invalidMetadata.map(json), brokenJson, badUtf8Json, deepJson),
          type: fc.constant('application/json'),
          framing: fc.constantFrom<Framing>('exact', 'chunked', 'long'),
          auth: authArb,
          method: fc.constantFrom('PUT', 'PATCH'),
        }),
        fc.record({
          id: existing,
          body: metadataArb.map(json),
          type: jsonType,
          framing: framingArb,
          auth: fc.constantFrom<Auth>('none', 'badKey', 'badCookie', 'expiredCookie', 'emptyKey', 'binaryKey'),
          method: fc.constantFrom('PUT', 'PATCH'),
        }),
      )
      .map((r) => ({ ...r, label: 'edit', target: `/api/post/${r.id}` })),
  );

  const del = b(
    fc
      .oneof(
        fc.record({ id: missingId, auth: authArb }),
        fc.record({
          id: existing,
          auth: fc.constantFrom<Auth>('none', 'badKey', 'badCookie', 'expiredCookie', 'binaryKey', 'badKeyGoodCookie'),
        }),
      )
      .map((r) => ({ label: 'delete', method: 'DELETE', target: `/api/post/${r.id}`, auth: r.auth })),
  );

  // Post history and tags (docs/decisions.md §9, §10): reads with hostile paging, reverts that cannot succeed.
  const tagName = fc.oneof(
    fc.constantFrom('fuzz', 't0', 'FUZZ', 'fuz', ...idTricks),
    fc.constantFrom(...hostileStrings).map(pathSegment),
  );
  const invalidRevert = objectOf({ version: fc.constantFrom(0, -1, 1.5, '1', null, 2 ** 53, 1e308, [1], true) }).map(
    (o) => ({ ...o, __fuzz: 1 }),
  );
  const historyAndTags = b(
    fc.oneof(
      fc.record({ id: fc.oneof(missingId, existing), q: queryArb(['offset', 'limit']), auth: authArb }).map(
        ({ id, q, auth }): Spec => ({
          label: 'versions',
          method: 'GET',
          target: `/api/post/${id}/versions${q}`,
          auth,
        }),
      ),
      fc
        .record({ q: queryArb(['prefix', 'offset', 'limit', 'prefix']), auth: authArb })
        .map(({ q, auth }): Spec => ({ label: 'tags', method: 'GET', target: `/api/tag${q}`, auth })),
      fc
        .record({ name: tagName, auth: authArb })
        .map(({ name, auth }): Spec => ({ label: 'tags', method: 'GET', target: `/api/tag/${name}`, auth })),
      fc
        .record({
          id: missingId,
          body: bodyFrom(objectOf({ version: fc.constantFrom(1, 2, 99) })),
          type: jsonType,
          framing: framingArb,
          auth: authArb,
        })
        .map((r): Spec => ({ ...r, label: 'revert', method: 'POST', target: `/api/post/${r.id}/revert` })),
      // Existing posts only with a body that cannot be a valid revert, or a caller who may not.
      fc
        .record({
          id: existing,
          body: fc.oneof(
            invalidRevert.map(json),
            brokenJson,
            badUtf8Json,
            deepJson,
            fc.constantFrom(Buffer.from('null'), Buffer.alloc(0)),
          ),
          type: fc.constant('application/json'),
          framing: fc.constantFrom<Framing>('exact', 'chunked', 'long'),
          auth: authArb,
        })
        .map((r): Spec => ({ ...r, label: 'revert', method: 'POST', target: `/api/post/${r.id}/revert` })),
      fc
        .record({
          id: existing,
          auth: fc.constantFrom<Auth>('none', 'badKey', 'badCookie', 'expiredCookie', 'emptyKey', 'binaryKey'),
        })
        .map(
          (r): Spec => ({
            label: 'revert',
            method: 'POST',
            target: `/api/post/${r.id}/revert`,
            auth: r.auth,
            type: 'application/json',
            body: json({ version: 1 }),
          }),
        ),
    ),
  );

  const partArb = (image: fc.Arbitrary<{ bytes: Buffer; type: string }>): fc.Arbitrary<Part[]> =>
    fc
      .tuple(
        fc.option(
          image.map((i): Part => ({ name: 'image', filename: 'x.png', type: i.type, content: i.bytes })),
          { nil: undefined },
        ),
        fc.option(
          fc
            .oneof(metadataArb.map(json), brokenJson, badUtf8Json, deepJson)
            .map((c): Part => ({ name: 'metadata', type: 'application/json', content: c })),
          { nil: undefined },
        ),
        fc.option(
          fc
            .constantFrom('0', '1', 'true', 'false', '2', '', 'yes', ' 1', '1\u0000')
            .map((f): Part => ({ name: 'force', content: Buffer.from(f) })),
          { nil: undefined },
        ),
        fc.array(
          fc.record({
            name: fc.option(
              fc.constantFrom('image', 'metadata', 'force', 'other', '', 'a"b', 'ïmage', 'image[]', 'x'.repeat(300)),
              { nil: undefined },
            ),
            filename: fc.option(
              fc.constantFrom('a.png', '../../x.png', 'C:\\x.png', '', '\u0000.png', 'x'.repeat(1000)),
              { nil: undefined },
            ),
            type: fc.option(
              fc.constantFrom(
                'image/png',
                'text/plain',
                'application/json',
                '',
                'image/',
                'image/svg+xml',
                'multipart/mixed; boundary=inner',
              ),
              { nil: undefined },
            ),
            content: fc.oneof(
              fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
              fc.constant(Buffer.alloc(300_000, 0x61)),
            ),
          }),
          { maxLength: 3 },
        ),
      )
      .map(([img, meta, force, more]) => {
        // The one real image offered is an existing post's, whole or as a damaged copy that may still
        // decode to the same pixels: without force either can only be refused (409 or 400).
        const real = img !== undefined && (img.content === ctx.duplicatePng || copiesOfRealImage.has(img.content));
        // Extra parts may be named force too (random bytes can spell "1"): they are turned off as well.
        if (real) for (const p of [force, ...more]) if (p?.name === 'force') p.content = Buffer.from('0');
        return [img, meta, force, ...more].filter((p): p is Part => p !== undefined);
      });

  // A valid, new image must never be stored: the only real image offered is an existing post's.
  const uploadImages = fc.oneof(
    { weight: 6, arbitrary: junkImages(ctx.duplicatePng) },
    { weight: 1, arbitrary: fc.constant({ bytes: ctx.duplicatePng, type: 'image/png' }) },
  );
  const boundaryArb = fc.constantFrom(
    'fuzzboundary',
    'fuzzboundary',
    'b',
    'x'.repeat(200),
    '"quoted"',
    'with space',
    '--',
    '',
  );
  const multipartType = (boundary: string, mode: number) =>
    [
      `multipart/form-data; boundary=${boundary}`,
      'multipart/form-data',
      `multipart/form-data; boundary=other`,
      `multipart/form-data; boundary="${boundary}"`,
      'multipart/mixed; boundary=' + boundary,
      'application/json',
      null,
      `multipart/form-data; boundary=${boundary}; boundary=again`,
    ][mode];
  const multipartSpec = (path: string, label: string, images: fc.Arbitrary<{ bytes: Buffer; type: string }>) =>
    fc
      .record({
        parts: partArb(images),
        boundary: boundaryArb,
        mode: fc.oneof(
          { weight: 12, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.integer({ min: 1, max: 7 }) },
        ),
        close: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        eol: fc.oneof({ weight: 8, arbitrary: fc.constant('\r\n') }, { weight: 1, arbitrary: fc.constant('\n') }),
        cut: fc.option(fc.nat(), { freq: 6, nil: undefined }),
        framing: framingArb,
        auth: authArb,
        q: queryArb(['maxDiff', 'limit']),
      })
      .map((r): Spec => {
        const body = multipartBody(r.boundary, r.parts, { close: r.close, eol: r.eol });
        return {
          label,
          method: 'POST',
          target: path + (label === 'similar' ? r.q : ''),
          auth: r.auth,
          type: multipartType(r.boundary, r.mode),
          framing: r.framing,
          // A cut body is sent whole-length-declared but shorter: the parser sees an early end of parts.
          body: r.cut === undefined ? body : body.subarray(0, r.cut % Math.max(1, body.length)),
        };
      });
  const upload = b(multipartSpec('/api/post/', 'upload', uploadImages));
  const similar = b(
    multipartSpec(
      '/api/post/similar',
      'similar',
      fc.oneof(
        { weight: 8, arbitrary: junkImages(ctx.duplicatePng) },
        { weight: 1, arbitrary: fc.constant({ bytes: ctx.duplicatePng, type: 'image/png' }) },
      ),
    ),
  );

  const selector = objectOf({
    type: fc.constantFrom('text', 'id', 'tag', 'rating', 'createdAt', 'updatedAt', 'system', 'TEXT', 'nope'),
    op: fc.constantFrom(
      'contains',
      'not_contains',
      'include',
      'exclude',
      'gt',
      'gte',
      'ge',
      'lt',
      'lte',
      'le',
      'eq',
      'ne',
      'untagged',
      'disowned',
      'like',
    ),
    value: fc.constantFrom(...hostileStrings),
  });
  const postSearch = b(
    fc
      .record({
        body: bodyFrom(
          objectOf({
            filter: fc.array(selector, { maxLength: 55 }),
            order: fc.array(
              objectOf({
                key: fc.constantFrom('createdAt', 'uploaderId', 'id', 'seq', '_score'),
                direction: fc.constantFrom('asc', 'desc', 'DESC'),
              }),
              { maxLength: 5 },
            ),
          }),
        ),
        type: jsonType,
        framing: framingArb,
        auth: authArb,
        q: queryArb(['offset', 'limit']),
      })
      .map((r) => ({ ...r, label: 'post-search', method: 'POST', target: `/api/post/search${r.q}` })),
  );

  // Well-formed searches with hostile values: they reach the query builders and Elasticsearch.
  const needle = fc.oneof(
    fc.constantFrom(...hostileStrings.filter((s) => s.trim() !== '')),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 600 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  );
  const dateValue = fc.constantFrom(
    '0000-01-01',
    '0001-01-01',
    '1970-01-01',
    '2024-02-29',
    '2023-02-28T23:59:59Z',
    '9999-12-31',
    '9999-12-31T23:59:59Z',
    '2024-05-01T00:00:00Z',
  );
  const validSelector = fc.oneof(
    fc.record({ type: fc.constant('text'), op: fc.constantFrom('contains', 'not_contains'), value: needle }),
    fc.record({ type: fc.constant('id'), op: fc.constant('contains'), value: needle }),
    fc.record({ type: fc.constant('tag'), op: fc.constantFrom('include', 'exclude'), value: needle }),
    fc.record({ type: fc.constant('rating'), value: fc.constantFrom('none', 'moderate', 'violent') }),
    fc.record({
      type: fc.constantFrom('createdAt', 'updatedAt'),
      op: fc.constantFrom('gt', 'gte', 'ge', 'lt', 'lte', 'le', 'eq', 'ne'),
      value: dateValue,
    }),
    fc.record({ type: fc.constant('system'), op: fc.constantFrom('untagged', 'disowned') }),
  );
  const validOrder = fc.array(
    fc.record({ key: fc.constantFrom('createdAt', 'uploaderId', 'id'), direction: fc.constantFrom('asc', 'desc') }),
    { maxLength: 3 },
  );
  const validPaging = fc.constantFrom(
    '',
    '?limit=1000',
    '?offset=9007199254740991',
    '?offset=10000&limit=1000',
    '?offset=9999&limit=2',
    '?limit=0',
    '?offset=2147483647&limit=24',
  );
  const postSearchValid = b(
    fc
      .record({ filter: fc.array(validSelector, { minLength: 1, maxLength: 50 }), order: validOrder, q: validPaging })
      .map(({ filter, order, q }) => ({
        label: 'post-search-ok',
        method: 'POST',
        target: `/api/post/search${q}`,
        type: 'application/json',
        body: json({ filter, order }),
      })),
  );
  const validCondition = fc.record({
    type: fc.constantFrom('tagInclude', 'tagExclude', 'textContains', 'uploadedBy', 'textMatch'),
    value: needle.filter((s) => s.trim() !== ''),
  });
  const imageSearchValid = b(
    fc
      .record({
        conditions: fc.array(validCondition, { maxLength: 50 }),
        orderBy: fc.constantFrom('uploadDate', 'id', 'relevance'),
        order: fc.constantFrom('asc', 'desc'),
        q: validPaging,
      })
      .map(({ q, ...body }) => ({
        label: 'image-search-ok',
        method: 'POST',
        target: `/image/search${q.replace('limit=0', 'limit=1')}`,
        type: 'application/json',
        body: json(body),
      })),
  );

  const condition = objectOf({
    type: fc.constantFrom('tagInclude', 'tagExclude', 'ratingEq', 'textContains', 'uploadedBy', 'textMatch', 'sql'),
    value: fc.constantFrom(...hostileStrings),
  });
  const imageSearch = b(
    fc
      .record({
        body: bodyFrom(
          objectOf({
            conditions: fc.array(condition, { maxLength: 55 }),
            orderBy: fc.constantFrom('uploadDate', 'id', 'relevance', 'x'),
            order: fc.constantFrom('asc', 'desc', 'x'),
          }),
        ),
        type: jsonType,
        framing: framingArb,
        auth: authArb,
        q: queryArb(['offset', 'limit']),
      })
      .map((r) => ({ ...r, label: 'image-search', method: 'POST', target: `/image/search${r.q}` })),
  );

  const templates = fc.constantFrom(
    '{{',
    '}}',
    '{{end}}',
    '{{if}}',
    '{{range}}{{end}}',
    '{{/* open',
    '{{.Nope.Deeper}}',
    '{{index .Tags 99999999999}}',
    '{{printf "%999999999d" 1}}',
    '{{printf "%.999999999f" 1.0}}',
    '{{printf "%*d" 999999999 1}}',
    '{{json .}}',
    '{{define "x"}}{{template "x"}}{{end}}{{template "x"}}',
    '{{$x := .}}{{$x.$x}}',
    '{{len 1}}',
    '{{call .Text}}',
    '{{if 1}}'.repeat(3000) + '{{end}}'.repeat(3000),
    '{{' + '('.repeat(10_000) + '1' + ')'.repeat(10_000) + '}}',
    '{{1' + ' | print'.repeat(5000) + '}}',
    '{{range $i, $a := .Tags}}'.repeat(30) + '{{json .}}' + '{{end}}'.repeat(30),
    '{{range .Tags}}{{range $.Tags}}{{range $.Tags}}{{print $ $ $ $}}{{end}}{{end}}{{end}}',
    '{{.Text}}'.repeat(7000),
    'x'.repeat(70_000),
    '{{- -}}',
    '{{"\\u0000"}}',
    '{{printf "%v" .}}'.repeat(500),
    '\u0000{{.Event}}',
  );
  const webhookBody = objectOf({
    url: fc.constantFrom(
      'http://127.0.0.1:1/x',
      'http://[::1]/',
      'http://0x7f000001/',
      'http://user:pw@10.0.0.1/',
      'ftp://1.2.3.4/',
      'javascript:alert(1)',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]/',
      'http://' + 'a'.repeat(3000),
      'http://1.1.1.1/',
    ),
    secret: fc.constantFrom('s', '', 'x'.repeat(300), '\u0000'),
    events: fc.array(fc.constantFrom('create', 'update', 'delete', 'CREATE', 'read'), { maxLength: 4 }),
    label: fc.constantFrom('l', 'x'.repeat(300)),
    template: templates,
    event: fc.constantFrom('create', 'update', 'delete', 'x'),
  });
  const webhookId = fc.oneof(missingId, fc.constantFrom(...ctx.otherWebhooks));
  const webhooks = b(
    fc
      .oneof(
        // The fuzz user already has the maximum: a create that passes validation is a 409.
        fc
          .record({ body: bodyFrom(webhookBody), type: jsonType, framing: framingArb, auth: authArb })
          .map((r) => ({ ...r, method: 'POST', target: '/api/webhook' })),
        fc
          .record({
            body: bodyFrom(objectOf({ template: templates, event: fc.constantFrom('create', 'update', 'delete') })),
            type: jsonType,
            framing: framingArb,
            auth: authArb,
          })
          .map((r) => ({ ...r, method: 'POST', target: '/api/webhook/preview' })),
        fc
          .record({ id: webhookId, body: bodyFrom(webhookBody), type: jsonType, framing: framingArb, auth: authArb })
          .map((r) => ({ ...r, method: 'PATCH', target: `/api/webhook/${r.id}` })),
        fc
          .record({
            id: fc.constantFrom(...ctx.ownWebhooks),
            body: fc.oneof(
              webhookBody.map((w) => json({ ...w, __fuzz: true })),
              brokenJson,
              deepJson,
              badUtf8Json,
            ),
            auth: authArb,
          })
          .map((r) => ({ ...r, type: 'application/json', method: 'PATCH', target: `/api/webhook/${r.id}` })),
        fc
          .record({
            id: webhookId,
            auth: authArb,
            method: fc.constantFrom('GET', 'DELETE'),
            suffix: fc.constantFrom('', '/deliveries', '/reactivate', '/reactivate', '/x'),
          })
          .map((r) => ({
            ...r,
            method: r.suffix === '/reactivate' ? 'POST' : r.method,
            target: `/api/webhook/${r.id}${r.suffix}`,
          })),
        fc
          .record({
            id: fc.constantFrom(...ctx.ownWebhooks),
            auth: authArb,
            suffix: fc.constantFrom('', '/deliveries'),
          })
          .map((r) => ({ ...r, method: 'GET', target: `/api/webhook/${r.id}${r.suffix}` })),
        fc
          .record({ auth: authArb, q: queryArb(['limit']) })
          .map((r) => ({ ...r, method: 'GET', target: `/api/webhook${r.q}` })),
      )
      .map((s): Spec => ({ ...s, label: 'webhook' })),
  );

  // Operational and documentation routes: public reads (GET, HEAD) with odd queries, targets and
  // headers; every other method on them is refused. Labelled by route so the test can see each answer.
  const metaTarget = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom('/metrics', '/openapi.json', '/docs'), queryArb(['name[]', 'format', 'x']))
        .map(([p, q]) => p + q),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/metrics/',
        '/METRICS',
        '/metrics%00',
        '/metrics.json',
        '/metrics/../docs',
        '/openapi.json/',
        '/openapi.JSON',
        '/openapi',
        '/openapi%2ejson',
        '/openapi.json%00.html',
        '/openapi.json?' + 'a=1&'.repeat(2000),
        '/docs/',
        '/docs/index.html',
        '/docs/../openapi.json',
        '/%64ocs',
        '/docs?<script>alert(1)</script>',
        '/docs;x=1',
        '/docs?x=%ff%fe',
        '/docs/' + 'a/'.repeat(2000),
      ),
    },
  );
  const metaHeaders = fc.array(
    fc.constantFrom<[string, string]>(
      ['Accept', 'application/openmetrics-text; version=1.0.0'],
      ['Accept', 'text/html'],
      ['Accept', '*/*;q=0'],
      ['Accept', 'application/json;q=x'],
      ['Accept', 'a'.repeat(5000)],
      ['Accept-Encoding', 'gzip, br, zstd'],
      ['Accept-Encoding', 'x'.repeat(2000)],
      ['Accept-Language', '*'.repeat(300)],
      ['If-None-Match', '*'],
      ['If-Modified-Since', 'not a date'],
      ['Range', 'bytes=0-10'],
      ['Range', 'bytes=99999999-'],
      ['X-Forwarded-Host', 'evil.example'],
      ['X-Forwarded-Proto', 'javascript'],
      ['X-Forwarded-For', '::1, 1.1.1.1'],
      ['Origin', 'null'],
    ),
    { maxLength: 3 },
  );
  const meta = b(
    fc
      .oneof(
        {
          weight: 5,
          arbitrary: fc.record({
            target: metaTarget,
            auth: authArb,
            extra: metaHeaders,
            method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            target: metaTarget,
            auth: authArb,
            extra: metaHeaders,
            method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
            body: bodyFrom(hostileValue),
            type: jsonType,
            framing: framingArb,
          }),
        },
      )
      .map(
        (r): Spec => ({
          ...r,
          label: /metrics/i.test(r.target) ? 'metrics' : /openapi/i.test(r.target) ? 'openapi' : 'docs',
        }),
      ),
  );

  // Protocol-level junk on any route: header floods, odd methods, odd targets, smuggling attempts.
  const anyRoute = fc.constantFrom(
    '/healthz',
    '/readyz',
    '/api/post/',
    `/api/post/${ctx.postIds[0]}`,
    '/api/post/search',
    '/image/search',
    '/api/post/similar',
    '/api/webhook',
    '/api/account',
    `/media/${ctx.images[0]}`,
    '/api/account/login',
    '/metrics',
    '/openapi.json',
    '/docs',
  );
  const protocol = fc.oneof(
    fc.record({ path: anyRoute, n: fc.constantFrom(50, 99, 101, 500, 2000), size: fc.constantFrom(1, 100, 1000) }).map(
      ({ path, n, size }): RawRequest =>
        build(ctx, {
          label: 'header-flood',
          method: 'GET',
          target: path,
          extra: Array.from({ length: n }, (_, i): [string, string] => [`X-Flood-${i}`, 'v'.repeat(size)]),
        }),
    ),
    fc
      .record({
        path: anyRoute,
        name: fc.constantFrom('Cookie', 'X-Access-Key', 'Content-Type', 'Host', 'Range', 'X-Request-Id', 'Accept'),
        size: fc.constantFrom(8000, 15_000, 17_000, 70_000),
      })
      .map(({ path, name, size }) =>
        build(ctx, {
          label: 'header-big',
          method: 'GET',
          target: path,
          auth: 'none',
          extra: [
            [
              name,
              name === 'Cookie' ? Array.from({ length: size / 10 }, (_, i) => `c${i}=v`).join('; ') : 'a'.repeat(size),
            ],
          ],
        }),
      ),
    fc
      .record({
        path: anyRoute,
        method: fc.constantFrom(
          'OPTIONS',
          'HEAD',
          'TRACE',
          'CONNECT',
          'PROPFIND',
          'MKCOL',
          'PURGE',
          'get',
          'GETT',
          'G\x00T',
          'SEARCH',
          'QUERY',
          'LINK',
        ),
      })
      .map(({ path, method }) =>
        // Node closes CONNECT requests unanswered when nothing listens for them: that is expected.
        Object.assign(build(ctx, { label: 'method', method, target: path }), { mayClose: method === 'CONNECT' }),
      ),
    fc
      .constantFrom(
        '*',
        '/api/post/../../etc/passwd',
        '//api//post//',
        '/api/post/?%',
        '/api/post/#frag',
        'http://evil.example/api/post/',
        '/%2e%2e/%2e%2e/',
        '/api/post/\x00',
        '/\xff\xfe',
        '/api/post/ HTTP/1.0',
        '/media/' + '%2e%2e%2f'.repeat(1500),
        '/' + 'a/'.repeat(4000),
        '/api/post/?' + 'a=1&'.repeat(3000),
        '/readyz?x=' + 'y'.repeat(9000),
        '/healthz\r\nX-Injected: 1',
        '/api/webhook/%00/deliveries',
        '/api/post/%5C..%5C',
      )
      .map((target) => build(ctx, { label: 'target', method: 'GET', target })),
    fc
      .record({ path: anyRoute, value: fc.constantFrom('gzip', 'deflate', 'br', 'gzip, gzip', 'identity', 'x-bomb') })
      .map(({ path, value }) =>
        // A gzip bomb sent as Content-Encoding: nothing may inflate it (the body is taken as it is).
        build(ctx, {
          label: 'content-encoding',
          method: 'POST',
          target: path,
          type: 'application/json',
          body: GZIP_BOMB,
          extra: [['Content-Encoding', value]],
        }),
      ),
    fc
      .record({
        path: anyRoute,
        junk: fc.constantFrom(
          'X-Request-Id: ../../etc',
          'X-Forwarded-For: 1.2.3.4, 5.6.7.8',
          'Host: ',
          'Host: a\r\nHost: b',
          'Transfer-Encoding: chunked, identity',
          'Transfer-Encoding: xchunked',
          'Content-Length: -1',
          'Content-Length: 1e3',
          'Content-Length: 99999999999999999999',
          ' Leading: space',
          'NoColon',
          'Bad Name: x',
          'X: \x00',
          'X: \x7f\x80',
        ),
      })
      .map(({ path, junk }) => {
        const req = build(ctx, { label: 'header-junk', method: 'POST', target: path, type: 'application/json' });
        req.headers.push(junk.split(': ', 2) as [string, string]);
        req.mayClose = true;
        return req;
      }),
  );

  return [
    { weight: 6, arbitrary: login },
    { weight: 3, arbitrary: account },
    { weight: 7, arbitrary: list },
    { weight: 6, arbitrary: getPost },
    { weight: 9, arbitrary: media },
    { weight: 13, arbitrary: edit },
    { weight: 4, arbitrary: del },
    { weight: 6, arbitrary: historyAndTags },
    { weight: 14, arbitrary: upload },
    { weight: 7, arbitrary: similar },
    { weight: 7, arbitrary: postSearch },
    { weight: 5, arbitrary: postSearchValid },
    { weight: 5, arbitrary: imageSearch },
    { weight: 4, arbitrary: imageSearchValid },
    { weight: 9, arbitrary: webhooks },
    { weight: 4, arbitrary: meta },
    { weight: 5, arbitrary: protocol },
  ];
}

/** 10 MB of zeros in about 10 KB of gzip. */
const GZIP_BOMB = zlib.gzipSync(Buffer.alloc(10_000_000), { level: 9 });

/** The few real decompression bombs under the pixel cap, on the public similar-image route. */
export function zeroBombCases(ctx: FuzzContext, n: number): RawRequest[] {
  const body = multipartBody('fuzzboundary', [
    { name: 'image', filename: 'bomb.png', type: 'image/png', content: pngZeroBomb() },
  ]);
  return Array.from({ length: n }, () =>
    build(ctx, {
      label: 'zero-bomb',
      method: 'POST',
      target: '/api/post/similar',
      type: 'multipart/form-data; boundary=fuzzboundary',
      body,
    }),
  );
}

/** A 50 MB image part, streamed in 64 KiB chunks without Content-Length (chunked) or with it. */
export function hugePartCase(ctx: FuzzContext, withLength: boolean, target = '/api/post/'): RawRequest {
  const total = 50 * 1024 * 1024;
  const head = Buffer.from(
    '--fuzzboundary\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n',
  );
  const tail = Buffer.from('\r\n--fuzzboundary--\r\n');
  const data = Buffer.alloc(64 * 1024, 0x41);
  const req = build(ctx, {
    label: withLength ? 'huge-part-cl' : 'huge-part-chunked',
    method: 'POST',
    target,
    type: 'multipart/form-data; boundary=fuzzboundary',
  });
  req.mayClose = true;
  if (withLength) {
    req.headers.push(['Content-Length', String(head.length + total + tail.length)]);
    req.stream = { head, chunk: data, total, tail };
  } else {
    req.headers.push(['Transfer-Encoding', 'chunked']);
    const frame = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    req.stream = {
      head: frame(head),
      chunk: frame(data),
      total,
      tail: Buffer.concat([frame(tail), Buffer.from('0\r\n\r\n')]),
    };
  }
  return req;
}
