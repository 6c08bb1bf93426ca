/**
 * Outside tools take the served OpenAPI documents as they are: `redocly lint` (recommended rules,
 * ./redocly.yaml) finds no error in /openapi.json or /openapi-3.0.json, and openapi-generator 7.17
 * (typescript-fetch, the jar cached by test/tools/openapi-generator.ts) makes a client from
 * /openapi-3.0.json that compiles under strict TypeScript. Every operation, the webhook included,
 * declares its security and has an operationId.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { ensureGeneratorJar, exec, javaBinary, run } from '../tools/openapi-generator.ts';

type Requirement = Record<string, string[]>;
type Op = { operationId?: string; security?: Requirement[] };
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Op>>;
  webhooks?: Record<string, Record<string, Op>>;
  'x-webhooks'?: Record<string, Record<string, Op>>;
  components: { securitySchemes: Record<string, unknown> };
};

type Report = {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
};

const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const bin = (pkg: string, file: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

let app: TestApp;
let dir: string;
const docs: { v31: Doc; v30: Doc; files: string[] } = { v31: undefined!, v30: undefined!, files: [] };
let jar: Promise<string>;

test.before(async () => {
  // The download (first run only; pretest normally did it) overlaps the app's start.
  jar = ensureGeneratorJar();
  jar.catch(() => {});
  app = await startTestApp();
  dir = tempDir('imgpost-openapi-tools');
  for (const [key, route] of [
    ['v31', '/openapi.json'],
    ['v30', '/openapi-3.0.json'],
  ] as const) {
    const res = await app.request(route);
    if (res.status !== 200) throw new Error(`${route}: ${res.status}`);
    docs[key] = (await res.json()) as Doc;
    const file = path.join(dir, route.slice(1));
    fs.writeFileSync(file, JSON.stringify(docs[key]));
    docs.files.push(file);
  }
});
test.after.always(async () => {
  await app?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const operations = (doc: Doc) =>
  [...Object.entries(doc.paths), ...Object.entries(doc.webhooks ?? doc['x-webhooks'] ?? {})].flatMap(([where, item]) =>
    Object.entries(item).map(([method, op]) => ({ at: `${method} ${where}`, op })),
  );

test('every operation and the webhook declare their security and have a unique operationId', (t) => {
  t.is(docs.v31.openapi, '3.1.0');
  t.is(docs.v30.openapi, '3.0.3');
  for (const doc of [docs.v31, docs.v30]) {
    const all = operations(doc);
    const ids = all.map(({ op }) => op.operationId);
    t.false(ids.includes(undefined), 'every operation has an operationId');
    t.is(new Set(ids).size, ids.length, "operationIds are unique, the webhook's included");
    for (const { at, op } of all) {
      t.true(Array.isArray(op.security), `${at} declares security`);
      for (const name of op.security!.flatMap(Object.keys))
        t.truthy(doc.components.securitySchemes[name], `${at}: scheme ${name} is defined`);
    }
  }
  const op = (p: string, m: string) => docs.v31.paths[p][m].security;
  t.deepEqual(
    op('/api/post/', 'get'),
    [{}, { accessKey: [] }, { appKey: [] }, { session: [] }],
    'public: any credential, or none',
  );
  t.deepEqual(
    op('/api/post/', 'post'),
    [{ accessKey: [] }, { appKey: [] }, { session: [] }],
    'authenticated: the access key, an app key or the cookie',
  );
  t.deepEqual(
    op('/api/account/reset-key', 'get'),
    [{ accessKey: [] }, { session: [] }],
    'an app key may not replace the account key',
  );
  t.deepEqual(docs.v31.webhooks!.postEvent.post.security, [], 'the webhook is authenticated by its signature header');
  // redocly.yaml turns off no-path-trailing-slash for the interface's /api/post/ alone.
  t.deepEqual(
    Object.keys(docs.v31.paths).filter((p) => p.endsWith('/')),
    ['/api/post/'],
  );
});

test('redocly lint (recommended rules) finds no error in either document', async (t) => {
  // One report per document; one process each, side by side.
  const reports = await Promise.all(
    docs.files.map(async (file) => {
      const { stdout } = await exec(
        process.execPath,
        [
          bin('@redocly/cli', 'bin/cli.js'),
          'lint',
          '--config',
          path.join(root, 'redocly.yaml'),
          '--format',
          'json',
          file,
        ],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
      // The JSON report is stdout (exit 1 when there are errors); banners go to stderr.
      return { file: path.basename(file), ...(JSON.parse(stdout) as Report) };
    }),
  );
  const problems = reports.flatMap((r) =>
    r.problems.map((p) => `${r.file}: ${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`),
  );
  const count = (key: 'errors' | 'warnings') => reports.reduce((n, r) => n + r.totals[key], 0);
  t.is(count('errors'), 0, problems.join('\n'));
  if (count('warnings')) t.log(problems.join('\n'));
});

test('openapi-generator 7.17 (typescript-fetch) makes a client from /openapi-3.0.json that compiles', async (t) => {
  const out = path.join(dir, 'client');
  // A short JVM run: the C1 compiler alone and the serial collector start fastest; no Markdown docs.
  await run(javaBinary(), [
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    '-jar',
    await jar,
    'generate',
    '-i',
    docs.files[1],
    '-g',
    'typescript-fetch',
    '-o',
    out,
    '--global-property',
    'apiDocs=false,modelDocs=false',
  ]);
  // As strict as a consumer's project can be; DOM for fetch and Request.
  fs.writeFileSync(
    path.join(out, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2020',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2020', 'DOM'],
        strict: true,
        noEmit: true,
        types: [],
        skipLibCheck: true,
      },
      include: ['**/*.ts'],
    }),
  );
  await t.notThrowsAsync(run(process.execPath, [bin('typescript', 'bin/tsc'), '-p', out]));
  const api = fs.readFileSync(path.join(out, 'apis', 'PostsApi.ts'), 'utf8');
  t.regex(api, /async listPosts\(/, 'operations become methods named by operationId');
  t.regex(api, /X-Access-Key/, 'the access key is sent where an operation takes it');
  // Nulls survive the 3.0 spelling: a legacy post's uploader, the image search's `error`.
  t.regex(fs.readFileSync(path.join(out, 'models', 'Post.ts'), 'utf8'), /uploader: User \| null;/);
  t.regex(fs.readFileSync(path.join(out, 'models', 'ImageSearchResult.ts'), 'utf8'), /error: \w+ \| null;/);
});
