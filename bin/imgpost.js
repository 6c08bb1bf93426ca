#!/usr/bin/env node
// The CLI runs as compiled JavaScript: scripts/build.mjs gives the build of the sources as they are
// now (built first, in about a second, when they changed). A dynamic import, as the directory is only
// known then. npx and npm scripts run this on the pinned Node (node_modules/.bin/node, docs/operations/runtime.md).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuild } from '../scripts/build.mjs';

await import(pathToFileURL(path.join(await ensureBuild(), 'cli.js')).href);
