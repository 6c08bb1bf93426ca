import { loadConfig } from '../config.ts';
import { jobsRole } from './jobs-role.ts';
import type { TagJob } from '../tags/job-repository.ts';
import { parseCommand } from './args.ts';

const USAGE = `Usage: imgpost tag jobs [--json] [--limit N]

Shows the jobs that apply tag implications to existing posts (docs/decisions.md §15), newest first: the
implication, its state (running or done), posts scanned and changed so far, and when it began and
ended. The server runs the jobs in the background and resumes an interrupted one where its last
batch ended; this command only reads them.

Options:
  --json       print the jobs as a JSON array on stdout
  --limit N    at most N jobs (default 20)
  --help       this text
`;

function describe(j: TagJob): string {
  const state = j.state === 'done' ? `done ${j.finishedAt}` : `running (at post ${j.cursor} of ${j.lastSeq})`;
  return `#${j.id}  ${j.tag} -> ${j.implies}  ${state}  scanned ${j.scanned}, changed ${j.changed}  by ${j.initiatorName ?? '-'} at ${j.createdAt}`;
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand('tag', USAGE, {
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, limit: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (typeof parsed === 'number') return parsed;
  const [sub, ...rest] = parsed.positionals;
  if (sub !== 'jobs' || rest.length > 0) {
    process.stderr.write(
      `imgpost tag: ${sub === undefined ? 'a subcommand is missing' : `unknown subcommand "${[sub, ...rest].join(' ')}"`}\n\n${USAGE}`,
    );
    return 2;
  }
  const limit = parsed.values.limit === undefined ? 20 : Number(parsed.values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(`imgpost tag: --limit is a positive integer\n\n${USAGE}`);
    return 2;
  }
  const { openTagJobsJob } = await jobsRole();
  const job = openTagJobsJob(loadConfig());
  try {
    const jobs = job.jobs.list(limit);
    if (parsed.values.json) process.stdout.write(`${JSON.stringify(jobs)}\n`);
    else process.stdout.write(jobs.length === 0 ? 'no tag jobs\n' : `${jobs.map(describe).join('\n')}\n`);
    return 0;
  } finally {
    job.close();
  }
}
