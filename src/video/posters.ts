import fs from 'node:fs/promises';
import path from 'node:path';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { PostFrames } from './frame-table.ts';
import type { MovingPictures } from './moving-pictures.ts';

/**
 * A moving picture's thumbnails (and its robust descriptor, from the same decode) are of its poster
 * frame (docs/decisions.md §21): the thumbnailer hands the stored file here and gets a still PNG of
 * the poster to resize instead. A still image's file is used as it is.
 */
export class PosterFrames {
  constructor(
    private readonly deps: {
      posts: Pick<PostRepository, 'getById'>;
      frames: PostFrames;
      pictures: MovingPictures;
      tmpDir: string;
    },
  ) {}

  async withPoster<T>(postId: string, file: string, use: (still: string) => Promise<T>): Promise<T> {
    const post = this.deps.posts.getById(postId);
    if (!post || post.media.kind === 'image') return use(file);
    const at = this.deps.frames.of([post.seq]).get(post.seq)?.poster.at ?? 0;
    const png = await this.deps.pictures.posterPng(
      file,
      { ...post.media, mime: post.mime, width: post.width, height: post.height },
      at,
    );
    const still = path.join(this.deps.tmpDir, `poster-${process.pid}-${postId}-${Date.now()}.png`);
    await fs.writeFile(still, png);
    try {
      return await use(still);
    } finally {
      await fs.rm(still, { force: true });
    }
  }
}
