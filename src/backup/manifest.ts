import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MANIFEST_FILE } from './layout.ts';

/**
 * A snapshot's manifest, the last thing written into it: a snapshot without one (or whose files do
 * not match it) is not a backup. Paths are relative to the snapshot directory.
 */
export const FORMAT = 'imgpost-backup';
export const FORMAT_VERSION = 1;

const entry = z.object({
  path: z
    .string()
    .regex(/^[\w.-]+(\/[\w.-]+)*$/, 'a relative path without ..')
    .refine((p) => !p.split('/').includes('..')),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const fileEntry = entry.extend({
  /** the source file's mtime, so the next backup can tell an unchanged file without reading it */
  mtimeMs: z.number(),
});

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  /** when the database snapshot was taken: the backup holds the data as of this moment */
  createdAt: z.string(),
  finishedAt: z.string(),
  /** the highest migration applied to the snapshot's database */
  schemaVersion: z.number().int().nonnegative(),
  source: z.object({ dataDir: z.string(), host: z.string() }),
  counts: z.object({
    posts: z.number().int(),
    users: z.number().int(),
    webhooks: z.number().int(),
    files: z.number().int(),
    bytes: z.number().int(),
  }),
  database: entry,
  files: z.array(fileEntry),
  /** present only with --include-secrets */
  sessionSecret: entry.optional(),
  /** thumbnails not on disk when the backup ran (not made yet); `imgpost rethumb --missing` makes them */
  missingThumbnails: z.array(z.string()),
  /** posts deleted between the database snapshot and the copy of their files: left out of the snapshot */
  deletedDuringBackup: z.array(z.string()),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type FileEntry = z.infer<typeof fileEntry>;
export type Entry = z.infer<typeof entry>;

export class ManifestError extends Error {}

/** Reads and validates `dir/manifest.json`; throws ManifestError with one line on any problem. */
export function readManifest(dir: string): Manifest {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new ManifestError(`${dir} holds no complete backup (no ${MANIFEST_FILE})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ManifestError(`${path.join(dir, MANIFEST_FILE)} is not valid JSON`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ManifestError(
      `${path.join(dir, MANIFEST_FILE)} is not an imgpost backup manifest (${issue.path.join('.') || 'root'}: ${issue.message})`,
    );
  }
  return parsed.data;
}
