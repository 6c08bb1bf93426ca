-- Moving pictures (docs/decisions.md §21): what a post's file is, read from its bytes at upload.
-- Posts from before this migration are still images (their animated GIFs are shown by their first frame).
ALTER TABLE posts ADD COLUMN media_kind TEXT NOT NULL DEFAULT 'image'
  CHECK (media_kind IN ('image', 'animation', 'video'));
-- seconds; NULL for a still image
ALTER TABLE posts ADD COLUMN duration REAL;
-- NULL for a still image, or where the container does not say
ALTER TABLE posts ADD COLUMN frame_count INTEGER;
ALTER TABLE posts ADD COLUMN has_audio INTEGER NOT NULL DEFAULT 0;
CREATE INDEX posts_moving ON posts (seq) WHERE media_kind <> 'image';

-- The frame hashes of a moving picture (§21's duplicate rule): the poster frame's instant (its hash is
-- posts.hash) and the spread frames as JSON [{ "at": s, "hash": "0101…", "blank": bool }, …].
CREATE TABLE post_frames (
  post_seq INTEGER PRIMARY KEY REFERENCES posts (seq) ON DELETE CASCADE,
  poster_at REAL NOT NULL,
  poster_blank INTEGER NOT NULL DEFAULT 0,
  frames TEXT NOT NULL
);
