import fs from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { openToolJob, type ToolJob } from '../../src/roles/jobs.ts';
import { benchElasticsearchUrl } from './elasticsearch.ts';
import { benchEnv, tempDir } from './env.ts';
import { startServerProcess } from './server-process.ts';

export interface Standalone {
  env: Record<string, string>;
  dataDir: string;
  /** a job on the bench's DATA_DIR, for building the corpus (the server process owns the directory) */
  services: ToolJob;
  /** starts the server process on the DATA_DIR (configured from `env` as it is then); stopped when the bench ends */
  startServer(): Promise<string>;
  /** the server process's pid once started (for its CPU time, /proc/<pid>/stat) */
  serverPid(): number | undefined;
}

/**
 * A benchmark run on its own (`npx tsx bench/NAME.ts`): a DATA_DIR and an index prefix of its own,
 * removed when `body` ends (unless `keep`), with the server process stopped first.
 */
export async function standalone(name: string, keep: boolean, body: (s: Standalone) => Promise<void>): Promise<void> {
  const esUrl = await benchElasticsearchUrl('warn');
  const dataDir = tempDir(name);
  const prefix = `bench-${process.pid}-${name}`;
  const env = benchEnv({ dataDir, prefix, esUrl });
  const services = await openToolJob(loadConfig(env), createLogger('warn'));
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    await body({
      env,
      dataDir,
      services,
      startServer: async () => (server = await startServerProcess(env)).url,
      serverPid: () => server?.pid,
    });
  } finally {
    await server?.stop();
    await services.es.indices
      .delete({ index: `${prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] })
      .catch(() => {});
    await services.close();
    if (!keep) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
