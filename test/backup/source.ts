/** A source service for the backup tests: the real app in-process, with posts uploaded over HTTP. */
import type { ExecutionContext } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

export interface Source {
  app: TestApp;
  user: TestUser;
  /** uploads `n` posts; returns their ids */
  upload(n: number): Promise<string[]>;
  /** the app's settings as a child process's environment */
  env: Record<string, string>;
}

let seed = 70_000;

export async function startSource(t: ExecutionContext): Promise<Source> {
  // Backups here follow the uploads at once and count every thumbnail: an upload is whole at its
  // answer (docs/decisions.md §4).
  const app = await startTestApp();
  t.teardown(() => app.close());
  const user = await createUser(app, 0x2 | 0x4 | 0x2000 | 0x4000);
  return {
    app,
    user,
    env: {
      DATA_DIR: app.dataDir,
      ELASTICSEARCH_INDEX_PREFIX: app.services.config.elasticsearch.indexPrefix,
      LOG_LEVEL: 'warn',
      HASH_WORKERS: '1',
    },
    async upload(n) {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await app.request('/api/post/', {
          method: 'POST',
          headers: user.headers,
          body: uploadForm({
            image: await randomImage(seed++, 160, 120),
            metadata: { text: `post ${seed}` },
            force: '1',
          }),
        });
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
        ids.push(((await res.json()) as { id: string }).id);
      }
      return ids;
    },
  };
}
