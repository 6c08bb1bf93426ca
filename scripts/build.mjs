/**
 * The compiled JavaScript the server and the CLI run as (docs/operations/runtime.md): esbuild bundles of
 * src/main.ts (server.js), src/cli/main.ts (cli.js) and the worker threads (workers/*.js), npm
 * packages left as imports. Measured against tsx at run time, the CLI starts with less than half the
 * CPU and the server holds less memory (bench/notes/code-figures.md).
 *
 * The output goes to dist/<hash of the sources>/, so a build is never stale: whoever runs it
 * (npm start, bin/imgpost.js, the tests' child processes) asks ensureBuild() for the directory that
 * matches the sources as they are now, and it is built then if missing (about a second). Concurrent
 * builders write to a private directory and rename it into place; the first rename wins.
 *
 * Source files find their resources beside themselves through `import.meta.url` (src/db/migrations,
 * es-mappings/, the gallery's client and assets); in a bundle that would name the bundle, so each
 * module's `import.meta.url` is replaced by its source file's URL, relative to the output directory
 * (dist/ can move with the tree). `new URL('../../workers/x.ts', import.meta.url)` names the worker's
 * compiled file instead, so worker threads run compiled code too.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const WORKERS = ['hash-worker', 'webhook-dispatcher'];
const KEEP_BUILDS = 3;

/**
 * Every file the bundles are made of: the TypeScript under src/, workers/, lib/ and tools/dev-services/ (the
 * CLI's `es` and `s3` commands and the managed node), and this script.
 */
function sourceFiles() {
  const out = [fileURLToPath(import.meta.url)];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(ts|cjs|json)$/.test(entry.name)) out.push(file);
    }
  };
  walk(path.join(ROOT, 'src'));
  walk(path.join(ROOT, 'workers'));
  walk(path.join(ROOT, 'lib'));
  walk(path.join(ROOT, 'tools', 'dev-services'));
  return out.sort();
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const file of sourceFiles())
    hash.update(path.relative(ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** Rewrites the `import.meta.url` of the module at `file`, bundled into `outdir` (see above). */
function rewriteImportMeta(text, file, outdir) {
  const relUrl = (target, slash = '') =>
    JSON.stringify(path.relative(outdir, target).split(path.sep).join('/') + slash);
  // `import.meta.url` in what the first pass writes must survive the second: a placeholder until then.
  const HERE = '\0IMPORT_META_URL\0';
  const withWorkers = text.replace(/new URL\((['"])([^'"]+)\1, import\.meta\.url\)/g, (_whole, _q, spec) => {
    const target = path.resolve(path.dirname(file), spec);
    const worker = path.relative(path.join(ROOT, 'workers'), target).replace(/\.ts$/, '');
    if (WORKERS.includes(worker)) return `new URL(${JSON.stringify(`./workers/${worker}.js`)}, ${HERE})`;
    return `new URL(${relUrl(target, spec.endsWith('/') ? '/' : '')}, ${HERE})`;
  });
  return withWorkers
    .replaceAll('import.meta.url', `new URL(${relUrl(file)}, import.meta.url).href`)
    .replaceAll(HERE, 'import.meta.url');
}

async function build(outdir) {
  const esbuild = await import('esbuild');
  const sourceUrl = {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        return {
          contents: text.includes('import.meta.url') ? rewriteImportMeta(text, args.path, outdir) : text,
          loader: 'ts',
        };
      });
    },
  };
  await esbuild.build({
    entryPoints: {
      server: path.join(ROOT, 'src/main.ts'),
      cli: path.join(ROOT, 'src/cli/main.ts'),
      ...Object.fromEntries(WORKERS.map((w) => [`workers/${w}`, path.join(ROOT, 'workers', `${w}.ts`)])),
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'external',
    // Stack traces name the TypeScript lines when run with --enable-source-maps.
    sourcemap: true,
    chunkNames: 'chunk-[hash]',
    plugins: [sourceUrl],
    logLevel: 'warning',
  });
  // The build runs in the process that then serves: esbuild's service process (tens of MB) would
  // otherwise stay beside the server for its whole life.
  await esbuild.stop();
}

function prune(keep) {
  const builds = fs
    .readdirSync(DIST, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^[0-9a-f]{16}$/.test(e.name) && e.name !== keep)
    .map((e) => ({ dir: path.join(DIST, e.name), mtime: fs.statSync(path.join(DIST, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEEP_BUILDS - 1)) fs.rmSync(old.dir, { recursive: true, force: true });
}

/** The directory holding server.js, cli.js and workers/ for the sources as they are now; built if missing. */
export async function ensureBuild() {
  const dir = path.join(DIST, sourceHash());
  if (fs.existsSync(path.join(dir, 'cli.js'))) return dir;
  fs.mkdirSync(DIST, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(DIST, '.tmp-'));
  try {
    await build(tmp);
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another process renamed the same build into place first: same sources, same output.
      if (!fs.existsSync(path.join(dir, 'cli.js'))) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  prune(path.basename(dir));
  return dir;
}

/**
 * `node scripts/build.mjs` prints the directory; `node scripts/build.mjs server|cli [args]` runs that entry in this
 * process.
 */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = await ensureBuild();
  const entry = process.argv[2];
  if (entry === undefined) process.stdout.write(`${dir}\n`);
  else if (entry === 'server' || entry === 'cli') {
    process.argv.splice(1, 2, path.join(dir, `${entry}.js`));
    await import(pathToFileURL(path.join(dir, `${entry}.js`)).href);
  } else {
    process.stderr.write('usage: node scripts/build.mjs [server|cli [args...]]\n');
    process.exit(2);
  }
}
