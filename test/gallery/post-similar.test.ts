/**
 * The post page's similar images come from the post's stored hashes (docs/decisions.md §24): opened under a host
 * name other than PUBLIC_URL's it lists a mirrored copy without an error, and no request of the page downloads
 * the original picture. A post from before those hashes were stored is found by its own hash until the
 * backfill reaches it, then with its mirrored copies too.
 */
import anyTest, { type TestFn } from 'ava';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { browserHooks, openBrowser, ready, type BrowserSession } from './browser.ts';

const test = anyTest as TestFn<{ app: TestApp; session: BrowserSession }>;

test.before(async (t) => {
  const app = await startTestApp();
  // The page is opened as 127.0.0.1 while the service names itself localhost (the default PUBLIC_URL's host).
  const other = app.url.replace('127.0.0.1', 'localhost');
  app.services.config.publicUrl = other;
  app.services.config.mediaUrl = `${other}/media`;
  t.context = { app, session: await openBrowser(app.url) };
});
browserHooks(test);

interface Uploaded {
  id: string;
  imageURL: string;
}

async function upload(app: TestApp, headers: Record<string, string>, image: Buffer, text: string): Promise<Uploaded> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers,
    body: uploadForm({ image, metadata: { text } }),
  });
  if (res.status !== 201) throw new Error(`upload ${res.status}: ${await res.text()}`);
  return (await res.json()) as Uploaded;
}

const similarIds = async (app: TestApp, id: string) => {
  const res = await app.request(`/api/post/${id}/similar?transforms=dihedral`);
  const body = (await res.json()) as { similar: { id: string; transform: string }[] };
  return body.similar.map((m) => `${m.id} ${m.transform}`);
};

test.serial(
  'the post page lists a mirrored copy under another host name and never downloads the original',
  async (t) => {
    const { app, session } = t.context;
    const { page } = session;
    const owner = await createUser(app, 6);
    const picture = await randomImage(4901, 320, 240);
    const original = await upload(app, owner.headers, picture, 'the original');
    const mirrored = await upload(app, owner.headers, await sharp(picture).flop().png().toBuffer(), 'its mirror');
    t.true(original.imageURL.startsWith('http://localhost:'));

    const requested: string[] = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`/post/${original.id}`);
    await ready(page);
    const match = page.locator(`.similar .grid a[href="/post/${mirrored.id}"]`);
    await match.waitFor();
    t.regex(await match.innerText(), /mirrored/);
    await page
      .locator('.possible-duplicates')
      .getByText(/No cropped|alike/)
      .waitFor();
    t.deepEqual(session.takeErrors(), [], 'console errors');
    t.is(await page.getByText('Something went wrong').count(), 0);
    const originalPath = new URL(original.imageURL).pathname;
    t.false(requested.includes(originalPath), `no request for ${originalPath}`);
    t.true(requested.includes(`/api/post/${original.id}/similar`));

    // As before migration 025: no stored hashes, so the post's own hash alone (its mirror is 30-odd bits away) …
    await app.services.dihedralHashes.stop();
    app.services.db.prepare('UPDATE posts SET dihedral = NULL WHERE id = ?').run(original.id);
    t.deepEqual(await similarIds(app, original.id), []);
    // … until the backfill has hashed the stored file.
    await app.services.dihedralHashes.runToEnd();
    t.deepEqual(await similarIds(app, original.id), [`${mirrored.id} mirror`]);
    t.is(app.services.postRepository.dihedral.pendingCount(), 0);
  },
);
