import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { loadConfig } from '../config.ts';
import { locateFfmpeg } from '../video/binaries.ts';

const exec = promisify(execFile);

/**
 * `imgpost --version`: this release, and the ffmpeg and ffprobe that read uploads (docs/decisions.md
 * §21): which builds, where they were found (a setting, the system's, the npm packages') and the
 * version each reports, so an operator can tell an old npm build from a patched one.
 */
export async function run(): Promise<number> {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const config = loadConfig();
  const tools = locateFfmpeg(config.video, config.searchPath);
  const versionOf = async (binary: string): Promise<string> => {
    try {
      const { stdout } = await exec(binary, ['-version'], { timeout: 10_000 });
      return stdout.split('\n')[0]?.trim() || 'unknown version';
    } catch (err) {
      return `not runnable (${(err as Error).message.split('\n')[0]})`;
    }
  };
  const lines = [
    `imgpost ${pkg.version}`,
    `ffmpeg: ${await versionOf(tools.ffmpeg)} (${tools.ffmpeg}, ${tools.source})`,
    `ffprobe: ${await versionOf(tools.ffprobe)} (${tools.ffprobe}, ${tools.source})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
