import type { Config } from '../config.ts';
import type { Db } from '../db/sqlite.ts';
import type { HashPool } from '../hashing/pool.ts';
import { locateFfmpeg } from '../video/binaries.ts';
import { PostFrames } from '../video/frame-table.ts';
import { MovingPictures } from '../video/moving-pictures.ts';
import { PosterFrames } from '../video/posters.ts';
import type { PostParts } from './post-parts.ts';

/** Moving pictures (docs/decisions.md §21): the bounded ffmpeg runs and the frame hashes' table. */
export interface VideoParts {
  pictures: MovingPictures;
  frames: PostFrames;
}

export function wireVideo(config: Config, db: Db, hashPool: Pick<HashPool, 'analyse'>): VideoParts {
  const v = config.video;
  const pictures = new MovingPictures(
    locateFfmpeg(v, config.searchPath),
    {
      maxImageBytes: config.maxImageBytes,
      maxVideoBytes: v.maxVideoBytes,
      maxVideoSeconds: v.maxVideoSeconds,
      maxVideoSide: v.maxVideoSide,
    },
    { timeoutMs: v.runTimeoutMs, memoryMb: v.runMemoryMb, inFlight: v.runsInFlight },
    async (file) => (await hashPool.analyse(file)).hash,
  );
  return { pictures, frames: new PostFrames(db) };
}

/** The poster frames the thumbnailer resizes for moving pictures. */
export function wirePosters(
  config: Config,
  posts: PostParts,
  files: { hashPool: HashPool; tmpDir: string },
): PosterFrames {
  const { pictures, frames } = wireVideo(config, posts.db, files.hashPool);
  return new PosterFrames({ posts: posts.postRepository, frames, pictures, tmpDir: files.tmpDir });
}
