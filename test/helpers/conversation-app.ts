/** One app per conversation test file (docs/decisions.md §18): an uploader, six posts, and calls on them. */
import { startTestApp, type TestApp } from './app.ts';
import { randomImage, uploadForm } from './fixtures.ts';
import { createUser, type TestUser } from './users.ts';
import { jsonInit } from './quick-users.ts';

export const COMMENT = 0x4000;

export interface ConversationApp {
  app: TestApp;
  owner: TestUser;
  posts: { id: string; seq: number }[];
}

export async function startConversationApp(seed: number): Promise<ConversationApp> {
  const app = await startTestApp();
  const owner = await createUser(app, 0x2 | COMMENT);
  const posts: { id: string; seq: number }[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await app.request('/api/post/', {
      method: 'POST',
      headers: owner.headers,
      body: uploadForm({ image: await randomImage(seed + i), metadata: { text: `talk ${i}`, tags: ['talk'] } }),
    });
    const { id } = (await res.json()) as { id: string };
    posts.push({ id, seq: app.services.postRepository.getById(id)!.seq });
  }
  return { app, owner, posts };
}

/** Calls on the file's app (read when called: it starts in test.before), each answering what the tests read. */
export function calls(appOf: () => TestApp) {
  const api = (url: string, method: string, headers: Record<string, string> = {}, body?: unknown) =>
    appOf().request(url, jsonInit(method, headers, body));
  const json = async (url: string, method: string, headers: Record<string, string> = {}, body?: unknown) => {
    const res = await api(url, method, headers, body);
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  };
  return {
    api,
    json,
    comment: (post: string, who: TestUser, body: unknown) =>
      json(`/api/post/${post}/comment`, 'POST', who.headers, { body }),
    getPost: async (id: string) => (await json(`/api/post/${id}`, 'GET')).body,
    search: async (body: unknown) =>
      (await json('/image/search?limit=24', 'POST', {}, body)).body.data as {
        total: number;
        images: { id: number }[];
      },
    indexed: async (id: string) =>
      (await appOf().services.es.get({ index: appOf().services.postsIndex.alias, id }))._source as Record<
        string,
        unknown
      >,
    /** only 'create' and 'reindex' outbox rows: no edit, so no version and no webhook */
    noEditOf: (id: string) => {
      const events = appOf().services.db.prepare('SELECT DISTINCT event FROM outbox WHERE post_id = ?').pluck().all(id);
      return events.every((e) => e === 'create' || e === 'reindex');
    },
  };
}
