/** Debian's gallery-dl against a test app, configured as a Danbooru instance (its `extractor.Danbooru` entries). */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './app.ts';

const run = promisify(execFile);

/** Downloads `url` with `--write-metadata` (and `extra` options) into a fresh directory, which it returns. */
export async function galleryDl(appUrl: string, url: string, label: string, extra: string[] = []): Promise<string> {
  const dir = tempDir(label);
  const host = new URL(appUrl).host;
  const config = path.join(dir, 'config.json');
  const instance = { root: appUrl, pattern: host.replace(/[.]/g, '\\.') };
  fs.writeFileSync(config, JSON.stringify({ extractor: { Danbooru: { imgpost: instance } } }));
  const out = path.join(dir, 'files');
  await run(
    'gallery-dl',
    [
      '--config-ignore',
      '-c',
      config,
      '--sleep-request',
      '0',
      '--no-part',
      '--write-metadata',
      ...extra,
      '-D',
      out,
      '-f',
      '{id}.{extension}',
      url,
    ],
    { timeout: 120_000, env: { ...process.env, HOME: dir } },
  );
  return out;
}
