/**
 * The gallery's browser code, bundled in memory by esbuild from ./client/main.ts: no build step
 * for users (`npm start` serves it). Built once per process and kept with its ETag; the static
 * files under ./assets are read once too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url));
const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

const etagOf = (body: Buffer) => `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** Bundles and minifies the browser code (ES2020 modules: every browser of the last years). */
export async function bundleClient(): Promise<Asset> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const body = Buffer.from(result.outputFiles[0].contents);
  return { body, type: 'text/javascript; charset=utf-8', etag: etagOf(body) };
}

const STATIC_TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** The static files of ./assets by name (gallery.css, icon.svg). */
export function readStaticAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of fs.readdirSync(ASSETS_DIR)) {
    const type = STATIC_TYPES[name.slice(name.lastIndexOf('.'))];
    if (!type) continue;
    const body = fs.readFileSync(ASSETS_DIR + name);
    assets.set(name, { body, type, etag: etagOf(body) });
  }
  return assets;
}
