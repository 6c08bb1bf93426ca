/**
 * The `imgpost` command line: `imgpost <command> [args]`. Each command lives in its own module,
 * loaded only when used, so `imgpost es start` does not pay for the server's dependencies.
 * Run with `npx imgpost` (bin/imgpost.js) or `tsx src/cli/main.ts`.
 */
import { ConfigError, cliDebug } from '../config.ts';

interface CommandModule {
  run(args: string[]): Promise<number>;
}

// One line per command: name, one-line summary, module.
const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  es: {
    summary: 'run the local Elasticsearch node, or a local cluster with --nodes N (start, stop, status)',
    load: () => import('./es-command.ts'),
  },
  s3: {
    summary: 'run a local S3 server (S3Proxy) for the S3 media store (start, stop, status)',
    load: () => import('./s3-command.ts'),
  },
  user: {
    summary: 'manage accounts (add, list, set-permission, reset-key, remove)',
    load: () => import('./user-command.ts'),
  },
  reindex: {
    summary: 'rebuild the search index from SQLite and swap it in, with no search downtime',
    load: () => import('./reindex-command.ts'),
  },
  import: {
    summary: "import another board's archive (gallery-dl metadata) or bare images, resumably, with progress",
    load: () => import('./import-command.ts'),
  },
  rethumb: {
    summary: 'regenerate the WebP thumbnails of existing posts, with progress',
    load: () => import('./rethumb-command.ts'),
  },
  backup: {
    summary: 'copy a consistent snapshot of DATA_DIR into DEST while the server runs',
    load: () => import('./backup-command.ts'),
  },
  restore: {
    summary: 'restore a backup into an empty DATA_DIR and rebuild the search index',
    load: () => import('./restore-command.ts'),
  },
  media: {
    summary: 'move the images to another media store while the server runs (migrate --to local|s3://...), status',
    load: () => import('./media-command.ts'),
  },
  tag: {
    summary: 'show the jobs applying tag implications to existing posts (tag jobs [--json])',
    load: () => import('./tag-command.ts'),
  },
  verify: {
    summary: 'compare SQLite with the search index (missing, stale, orphan); --repair fixes it',
    load: () => import('./verify-command.ts'),
  },
};

// Shared by every command, so scripts can tell "it ran and found a problem" from "called wrongly".
const EXIT_CODES = `
Output: data goes to stdout (JSON with --json, or always JSON for \`user\` and \`es status\`);
progress and messages go to stderr. Settings come from the environment (DATA_DIR, ...).

Exit status:
  0   success
  1   the command ran and failed or found a problem (verify: drift; import: files that
      are not images; rethumb: posts that failed; backup/restore: failed or
      refused; media: refused or failed part-way; user: unknown user, invalid values)
  2   usage error (unknown command or option, missing argument) or invalid configuration
`;

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}   ${c.summary}`);
  return `Usage: imgpost <command> [args]\n\nCommands:\n${lines.join('\n')}\n\nRun \`imgpost <command> --help\` for a command's options; \`imgpost --version\` names this release and its ffmpeg.\n${EXIT_CODES}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  // This release and the ffmpeg in use (docs/decisions.md §21).
  if (name === '--version' || name === '-V') return (await import('./version-command.ts')).run();
  const command = name === undefined ? undefined : Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(name === undefined ? usage() : `imgpost: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  return (await command.load()).run(args);
}

try {
  // exitCode rather than exit(): lets stdout drain before the process ends.
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`imgpost: ${message}\n`);
  if (cliDebug() && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  // Bad configuration is the caller's to fix, like a bad option (and what the server exits with).
  process.exitCode = err instanceof ConfigError ? 2 : 1;
}
