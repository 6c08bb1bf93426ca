-- Organization (docs/decisions.md §19): a post's source and parent, tag categories, pools.

-- The source a picture came from ('' when none) and its parent post. A parent's delete clears its
-- children's parent_seq first, each as an edit with a version (src/posts/parents); the foreign key's
-- SET NULL is only the last guard.
ALTER TABLE posts ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE posts ADD COLUMN parent_seq INTEGER REFERENCES posts(seq) ON DELETE SET NULL;
CREATE INDEX posts_by_parent ON posts (parent_seq, seq) WHERE parent_seq IS NOT NULL;

-- History keeps both: the parent by its UUID, which still reads after the parent is gone.
ALTER TABLE post_versions ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE post_versions ADD COLUMN parent_id TEXT;

-- Every tag has a category; posts list their tags by it (artist, copyright, character, general, meta).
ALTER TABLE tags ADD COLUMN category TEXT NOT NULL DEFAULT 'general'
  CHECK (category IN ('general', 'artist', 'copyright', 'character', 'meta'));

-- Pools: ordered collections edited by the community. The name is unique case-insensitively
-- (`folded`, src/kernel/tag-fold.ts's fold, written by the pools repository).
CREATE TABLE pools (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  name        TEXT NOT NULL,
  folded      TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

-- A pool's posts in order. Owned by the kernel (src/kernel/pool-membership.ts): a post's pools and
-- its position in each are part of its record and of its search document. Positions are 0.. as the
-- last full order was written; a deleted post leaves a gap (the order stays exact).
CREATE TABLE pool_posts (
  pool_id  INTEGER NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
  post_seq INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (pool_id, post_seq),
  UNIQUE (pool_id, position)
) WITHOUT ROWID;
CREATE INDEX pool_posts_by_post ON pool_posts (post_seq, pool_id);

-- Every change of a pool, who and when (docs/decisions.md §19). No foreign key: a deleted pool's
-- history stays readable. `changes` is JSON: { name?, description?, postIds? } each { old, new }.
CREATE TABLE pool_changes (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  pool_id    INTEGER NOT NULL,
  action     TEXT NOT NULL CHECK (action IN ('create', 'edit', 'delete', 'post-deleted', 'post-merged')),
  user_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
  changes    TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX pool_changes_by_pool ON pool_changes (pool_id, id);
CREATE INDEX pool_changes_by_user ON pool_changes (user_id) WHERE user_id IS NOT NULL;
