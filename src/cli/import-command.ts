import fs from 'node:fs';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';
import type { ImportSummary } from '../import/summary.ts';
import { MAX_TAGS } from '../posts/schemas.ts';

const USAGE = `Usage: imgpost import DIR [--dry-run] [--map-users] [--force] [--json]
       imgpost import --from URL [--tags QUERY] [--login NAME --api-key KEY] [--limit N] [--rate R]
                      [--dry-run] [--map-users] [--force] [--json]
       imgpost import --history [--json]

Imports another board's archive (docs/decisions.md §22). Every file under DIR (recursively) with
gallery-dl's metadata beside it (gallery-dl --write-metadata: FILE.EXT.json) becomes a post with its
tags and their categories, rating, source, creation date, parent, pools, comments and origin (the site
and the post's id there). Understood: Danbooru and the boards speaking its API (imgpost among them),
e621/e926, Gelbooru and Gelbooru 0.2 boards, Moebooru boards (yande.re, Konachan), szurubooru,
Philomena (Derpibooru) and Shimmie2; a board of its own is recognised by its metadata's shape.
Image files without metadata are imported bare, as legacy posts with no owner.

The same origin post is never imported twice: an import run again, or killed and run again, brings
only what is missing. A near-duplicate of a post here enriches that post (the tags it lacked, the
origin) instead of being stored again. A post holds at most ${MAX_TAGS} tags here: an imported or
enriched post gains the origin's tags while it has room, artists, copyrights and characters first,
then general and meta tags; the summary lists the tags dropped. Files are copied; DIR is left as it
was. Safe beside a running server: its uploads and searches go on; thumbnails are queued for the
server to make.

--from URL reads a live board that speaks Danbooru's API (imgpost is one): its posts newest first,
page by post number, each file checked against its md5; then the pools and comments of what it
imported, the wiki pages of their tags and the notes of their posts. An import run again (or after
a kill) downloads only what is missing.

Options:
  --from URL   the board's address (http or https)
  --tags Q     only the posts this search finds there (Danbooru spelling)
  --login NAME, --api-key KEY   for boards that need an account
  --limit N    at most N posts (the newest)
  --rate R     at most R requests a second (default 2); a 429 or 503 waits as Retry-After says
  --dry-run    read and map everything, write nothing; print the mapping it would apply (sites,
               tags of each category, ratings, fields it does not know)
  --map-users  a post whose uploader's name is an account here is owned by it (else it is a legacy
               post keeping the name in its origin)
  --force      store near-duplicates as posts of their own too
  --json       print the summary as JSON on stdout
  --history    list the past imports (what, when, how many)
  --help       this text

Progress (posts, posts a second, time left) goes to stderr, then the summary and every file refused
with its reason. Exit status: 0 done, 1 some files were refused, 2 usage error.
`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand('import', USAGE, {
    args,
    allowPositionals: true,
    options: {
      force: { type: 'boolean' },
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      'map-users': { type: 'boolean' },
      history: { type: 'boolean' },
      from: { type: 'string' },
      tags: { type: 'string' },
      login: { type: 'string' },
      'api-key': { type: 'string' },
      limit: { type: 'string' },
      rate: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const dir = positionals[0];
  const from = values.from;
  if (values.history || from !== undefined ? positionals.length !== 0 : positionals.length !== 1 || !isDirectory(dir)) {
    process.stderr.write(`imgpost import: give one existing directory, or --from URL, or --history\n\n${USAGE}`);
    return 2;
  }
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  const rate = values.rate === undefined ? 2 : Number(values.rate);
  const badUrl = from !== undefined && !/^https?:\/\/[^/]/.test(from);
  if (badUrl || !(limit > 0 && (limit === Infinity || Number.isInteger(limit))) || !(rate > 0 && rate <= 1000)) {
    process.stderr.write(
      `imgpost import: --from is an http(s) address, --limit a positive integer, --rate a number of requests a second (0 to 1000)\n\n${USAGE}`,
    );
    return 2;
  }
  if ((values.login === undefined) !== (values['api-key'] === undefined)) {
    process.stderr.write(`imgpost import: --login and --api-key go together\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const { openToolJob } = await jobsRole();
  const services = await openToolJob(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  try {
    const { ImportRuns } = await import('../import/import-runs.ts');
    const runs = new ImportRuns(services.db);
    if (values.history) {
      const list = runs.list();
      if (values.json) process.stdout.write(`${JSON.stringify(list)}\n`);
      else
        for (const r of list)
          process.stdout.write(
            `${r.startedAt}  ${r.finishedAt ? 'finished' : 'unfinished'}  imported ${r.imported}, merged ${r.merged}, already ${r.already}, refused ${r.refused}  ${r.source}\n`,
          );
      return 0;
    }
    const deps = {
      postService: services.postService,
      posts: services.postRepository,
      unitOfWork: services.unitOfWork,
      pools: services.pools,
      comments: services.people.comments,
      users: services.accounts.users,
      runs,
      tmpDir: services.images.tmpDir,
    };
    const common = {
      force: Boolean(values.force),
      dryRun: Boolean(values['dry-run']),
      mapUsers: Boolean(values['map-users']),
      progress: (total: number) => createProgress('import', total, { unit: 'posts', timeLeft: true }),
    };
    let summary: ImportSummary;
    if (from !== undefined) {
      const { importFromBoard } = await import('../import/live.ts');
      summary = await importFromBoard(
        {
          ...deps,
          commentService: services.comments,
          knowledge: {
            wikiPage: async (tag, page) => services.wiki.importPage(tag, page),
            notes: (seq, notes) => services.notes.addImported(seq, notes),
          },
        },
        from,
        { ...common, tags: values.tags ?? '', login: values.login, apiKey: values['api-key'], limit, rate },
      );
    } else {
      const { importArchive } = await import('../import/importer.ts');
      summary = await importArchive(deps, dir, common);
    }
    report(summary);
    if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    return summary.refused.length > 0 ? 1 : 0;
  } finally {
    await services.close();
  }
}

const isDirectory = (dir: string | undefined) =>
  dir !== undefined && fs.existsSync(dir) && fs.statSync(dir).isDirectory();

function report(s: ImportSummary): void {
  const out = (line: string) => process.stderr.write(`${line}\n`);
  if (s.dryRun) {
    out('dry run: nothing was written. The mapping it would apply:');
    for (const [site, { family, posts }] of Object.entries(s.mapping.sites))
      out(`  site ${site} (read as ${family}): ${posts} posts`);
    out(
      `  tags: ${Object.entries(s.mapping.tags)
        .map(([c, n]) => `${n} ${c}`)
        .join(', ')}`,
    );
    for (const [rating, n] of Object.entries(s.mapping.ratings)) out(`  rating ${rating}: ${n} posts`);
    const unknown = Object.entries(s.mapping.unknownFields);
    out(
      unknown.length
        ? `  fields not read: ${unknown.map(([f, n]) => `${f} (${n})`).join(', ')}`
        : '  fields not read: none',
    );
    out(`  already imported: ${s.alreadyImported}`);
  } else
    out(
      `imported ${s.imported}, merged into existing posts ${s.merged}, already imported ${s.alreadyImported}, ` +
        `bare files ${s.bare} (near-duplicates skipped ${s.bareDuplicates}), parents set ${s.parentsSet}, ` +
        `pools ${s.pools}, comments ${s.comments}, refused ${s.refused.length}` +
        (s.tagsDropped.length > 0 ? `, posts with tags dropped ${s.tagsDropped.length}` : ''),
    );
  for (const bad of s.refused) out(`  refused ${bad.file}: ${bad.reason}`);
  for (const { file, tags } of s.tagsDropped)
    out(`  tags dropped from ${file} (a post holds at most ${MAX_TAGS}): ${tags.join(' ')}`);
}
