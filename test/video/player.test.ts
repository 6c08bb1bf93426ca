/**
 * docs/decisions.md §21 in Chromium: a WebM post plays on its page (poster, controls, muted, loop,
 * playsinline), seeks to its middle (the media answers ranges: 206), and grids mark it with its
 * duration; on the local store and on the S3 store (the suite's S3Proxy).
 */
import fs from 'node:fs';
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { removeClips, shotsClip } from '../helpers/clips.ts';
import { uploadForm } from '../helpers/fixtures.ts';
import { sharedS3Env } from '../helpers/s3.ts';
import { createUser } from '../helpers/users.ts';
import { logInByForm, openBrowser, ready, type BrowserSession } from '../gallery/browser.ts';

let session: BrowserSession | undefined;
const apps: TestApp[] = [];

test.after.always(async () => {
  await session?.close();
  for (const app of apps) await app.close();
  removeClips();
});

for (const store of ['local', 's3'] as const) {
  test.serial(
    `on the ${store} store: the post page plays a WebM, seeks to its middle, and grids mark it`,
    async (t) => {
      const app = await startTestApp(store === 's3' ? await sharedS3Env() : { MEDIA_STORE: 'local' });
      apps.push(app);
      const user = await createUser(app, 0x2);
      const res = await app.request('/api/post/', {
        method: 'POST',
        headers: { 'X-Access-Key': user.accessKey },
        body: uploadForm({
          image: fs.readFileSync(await shotsClip()),
          type: 'video/webm',
          metadata: { text: 'three shots' },
        }),
      });
      t.is(res.status, 201);
      const post = await res.json();
      t.is(post.media.kind, 'video');

      session ??= await openBrowser(app.url);
      const { page } = session;
      session.takeErrors();
      const ranges: number[] = [];
      const onResponse = (r: import('playwright-core').Response) => {
        if (r.url() === post.imageURL) ranges.push(r.status());
      };
      page.on('response', onResponse);
      try {
        const answer = await page.goto(`${app.url}/post/${post.id}`);
        // The page's CSP lets media come from the media origin alone (and blob: previews).
        t.regex(
          answer?.headers()['content-security-policy'] ?? '',
          new RegExp(`media-src 'self' ${new URL(app.url).origin} blob:`),
        );
        await ready(page);
        const video = page.locator('.post-image video');
        await video.waitFor();
        t.like(
          await video.evaluate((v: HTMLVideoElement) => ({
            src: v.currentSrc || v.src,
            poster: v.poster,
            controls: v.controls,
            muted: v.muted,
            loop: v.loop,
            playsInline: v.playsInline,
            preload: v.preload,
          })),
          {
            src: post.imageURL,
            poster: post.thumbnails['1024'],
            controls: true,
            muted: true,
            loop: true,
            playsInline: true,
            preload: 'metadata',
          },
        );
        // It plays: currentTime advances.
        await video.evaluate((v: HTMLVideoElement) => v.play());
        await page.waitForFunction(
          () => (document.querySelector('.post-image video') as HTMLVideoElement).currentTime > 0.3,
        );
        // Seeking to the middle is answered from a range of the file.
        await video.evaluate((v: HTMLVideoElement) => v.pause());
        const middle = await video.evaluate(
          (v: HTMLVideoElement) =>
            new Promise<number>((resolve) => {
              v.addEventListener('seeked', () => resolve(v.currentTime), { once: true });
              v.currentTime = v.duration / 2;
            }),
        );
        t.true(Math.abs(middle - post.media.duration / 2) < 0.2, `seeked to ${middle}`);
        t.true(ranges.includes(206), `the video's responses: ${ranges.join(', ')}`);

        // The grid of the newest posts and a search's grid mark the video with its duration.
        for (const address of ['/', '/search?q=three']) {
          await page.goto(`${app.url}${address}`);
          await ready(page);
          const mark = page.locator(`.grid a[href="/post/${post.id}"] .media-mark`);
          await mark.waitFor();
          t.is(await mark.textContent(), 'Video 0:04', address);
        }
        if (store === 'local') {
          // The upload page shows a picked video with its duration, and finds the post it copies by its poster.
          await logInByForm(page, user.name, 'correct horse battery');
          await page.goto(`${app.url}/upload`);
          await ready(page);
          await page.setInputFiles('input[type=file]', {
            name: 'again.webm',
            mimeType: 'video/webm',
            buffer: fs.readFileSync(await shotsClip()),
          });
          await page.locator('.preview video').waitFor();
          await page.locator('.preview p', { hasText: 'video 0:04' }).waitFor();
          // The lookup sends the poster frame the browser made (or the clip itself, which the server reads with
          // ffmpeg, if the browser could not) on a box the suite keeps busy.
          // The page says how its lookup ended (data-lookup: found, none, or why it failed).
          const possible = page.locator('.possible-duplicates[data-lookup]');
          await possible.waitFor({ state: 'attached', timeout: 60_000 });
          t.is(await possible.getAttribute('data-lookup'), 'found');
          await possible.locator(`.grid a[href="/post/${post.id}"]`).waitFor();
        }
        t.deepEqual(session.takeErrors(), []);
      } finally {
        page.off('response', onResponse);
      }
    },
  );
}
