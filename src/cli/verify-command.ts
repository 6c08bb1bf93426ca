import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';
import { verify, type VerifyResult } from '../search/verify.ts';
import type { IndexJob } from '../roles/jobs.ts';
import type { TableProblem } from '../db/table-problem.ts';

const USAGE = `Usage: imgpost verify [--repair] [--json]

Compares SQLite (DATA_DIR) with the posts index behind the alias: posts missing from the index,
stale documents (version or content differ from the record) and orphans (documents of posts that
no longer exist). Checks the wiki and note tables: notes on posts that do not exist, histories out
of order or without the current version, versions of pages or notes that do not exist, posts whose
note count or last note time disagree with their notes (listed; --repair leaves them: they need a
person). Exit status 0 when clean, 1 on drift or such rows. Also counts the posts whose file's md5
and size are not known yet (not drift: the server's backfill fills them in).

Options:
  --repair    fix the drift (index missing and stale posts, delete orphans); exit 0 when it worked;
              also compute the md5 and size of the posts still without them, as the server's
              backfill would (a post whose file is gone gets none)
  --json      print the result as JSON on stdout
  --help      this text

Progress goes to stderr.
`;

const LISTED = 20;

/** With --repair, the md5 and size filled in (docs/decisions.md §20), of which files that are gone. */
type Result = VerifyResult & { fileFactsFilled?: number; fileFactsGone?: number; knowledge: TableProblem[] };

function describe(result: Result, repairing: boolean): string {
  const by = (kind: string) => result.drift.filter((d) => d.kind === kind).length;
  const lines = [
    `checked ${result.posts} posts and ${result.documents} documents in ${result.index}: ` +
      `${by('missing')} missing, ${by('stale')} stale, ${by('orphan')} orphan`,
  ];
  for (const d of result.drift.slice(0, LISTED))
    lines.push(`  ${d.kind.padEnd(7)} ${d.postId}${d.reason ? ` (${d.reason})` : ''}`);
  if (result.fileFactsFilled !== undefined)
    lines.push(`filled in the md5 and size of ${result.fileFactsFilled} posts (${result.fileFactsGone} files gone)`);
  if (result.fileFactsPending > 0)
    lines.push(`${result.fileFactsPending} posts await their file's md5 and size (the server's backfill fills them)`);
  if (result.drift.length > LISTED) lines.push(`  ... and ${result.drift.length - LISTED} more`);
  lines.push(`checked the wiki and note tables: ${result.knowledge.length} problems`);
  for (const p of result.knowledge.slice(0, LISTED)) lines.push(`  ${p.table} ${p.row}: ${p.problem}`);
  if (result.knowledge.length > LISTED) lines.push(`  ... and ${result.knowledge.length - LISTED} more`);
  if (repairing && result.drift.length > 0)
    lines.push(
      result.clean
        ? `repaired ${result.repaired}; the index now agrees with SQLite`
        : `repair incomplete: drift remains`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * The server's backfill of md5 and size, run here to the end: the same runner, the same durable
 * cursor (md5 IS NULL), so a live server's runner beside it only finds less to do. A post whose
 * store did not answer stays pending (reported).
 */
async function fillFileFacts(services: IndexJob, result: Result): Promise<void> {
  const runner = services.fileFacts();
  await runner.runToEnd();
  result.fileFactsFilled = runner.stats.stored + runner.stats.missing;
  result.fileFactsGone = runner.stats.missing;
  result.fileFactsPending = services.postRepository.files.countMissing();
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand('verify', USAGE, {
    args,
    options: { repair: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const config = loadConfig();
  const { openIndexJob } = await jobsRole();
  const services = await openIndexJob(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  try {
    const repairing = values.repair === true;
    const result: Result = {
      ...(await verify(services, {
        repair: repairing,
        progress: (label, total) => createProgress(`verify ${label}`, total, { unit: label }),
      })),
      knowledge: services.knowledgeProblems(),
    };
    // A repair queues 'reindex' outbox rows; apply them now rather than at the server's next poll
    // (no relay loop runs in a job). Failing that, the server's relay still applies them.
    if (repairing && result.repaired > 0) await services.relay.drain().catch(() => 0);
    if (repairing && result.fileFactsPending > 0) await fillFileFacts(services, result);
    process.stderr.write(describe(result, repairing));
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result.clean && result.knowledge.length === 0 ? 0 : 1;
  } finally {
    await services.close();
  }
}
