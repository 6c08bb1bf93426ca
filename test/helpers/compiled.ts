/**
 * The compiled server and CLI (scripts/build.mjs) that tests run as child processes, as production
 * runs them: `spawn(process.execPath, [CLI_JS, ...args])`. Each starts with less than half the CPU
 * of `--import tsx src/cli/main.ts`, and the suite starts a few hundred. The build matches the
 * sources as they are now (dist/<source hash>), so an edited src/ is never tested stale.
 */
import path from 'node:path';
import { ensureBuild } from '../../scripts/build.mjs';

const dir = await ensureBuild();
export const SERVER_JS = path.join(dir, 'server.js');
export const CLI_JS = path.join(dir, 'cli.js');
