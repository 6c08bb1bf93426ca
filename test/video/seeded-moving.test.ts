import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { openDatabase } from '../../src/db/sqlite.ts';
import { seedPosts } from '../../tools/seed/seed.ts';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';

/**
 * The seeder's moving pictures (tools/seed/seed.ts `moving`, for the bench of issue 47): a share of the
 * posts are videos and animations as the upload path records them (docs/decisions.md §21), indexed from the
 * record, and the rest of the seed's posts are the same as without them.
 */
let seeded: SeededApp | undefined;
test.after.always(async () => {
  await seeded?.app.close();
});

test('a seeded share of moving pictures is found by mediaKind, the other posts unchanged', async (t) => {
  seeded = await startSeededApp({ count: 600, seed: 5, moving: 0.1 });
  const posts = seeded.posts();
  const videos = posts.filter((p) => p.media.kind === 'video');
  const animations = posts.filter((p) => p.media.kind === 'animation');
  t.true(videos.length > 20 && animations.length > 5, `${videos.length} videos, ${animations.length} animations`);
  for (const v of videos) {
    t.true(['webm', 'mp4'].includes(v.ext) && v.media.duration! >= 1 && v.media.duration! <= 120, v.id);
    t.is(v.media.frames, Math.round(v.media.duration! * 30));
  }
  for (const a of animations) t.true(a.ext === 'gif' && !a.media.hasAudio && a.media.duration! > 0, a.id);

  const res = await postJson(seeded.app, '/image/search?limit=100', {
    conditions: [{ type: 'mediaKind', value: 'video' }],
  });
  t.is(res.status, 200);
  t.is(res.body.data.total, videos.length);
  const want = new Set(videos.map((v) => v.seq)); // the public number is the post's seq
  for (const image of res.body.data.images as { id: number }[]) t.true(want.has(image.id));

  // The same seed without moving pictures: the same posts, every one a still image.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'imgpost-seed-still-'));
  const db = openDatabase(dir);
  try {
    seedPosts(db, { count: 600, seed: 5 });
    const still = db.prepare('SELECT id, media_kind FROM posts ORDER BY seq').all() as {
      id: string;
      media_kind: string;
    }[];
    t.deepEqual(
      still.map((p) => p.id),
      posts.map((p) => p.id),
    );
    t.true(still.every((p) => p.media_kind === 'image'));
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
