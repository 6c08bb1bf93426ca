-- Post history (docs/decisions.md §9). One row per version of a post's metadata, numbered from 1 per post.
-- `number` is the history's own count, not posts.version (that one moves with every index write).
-- tags: JSON array of the names; editor_id: who made it (NULL for imports and legacy posts, and
-- once the account is removed). Rows go with their post (ON DELETE CASCADE).
CREATE TABLE post_versions (
  post_seq   INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  number     INTEGER NOT NULL CHECK (number >= 1),
  text       TEXT NOT NULL,
  rating     TEXT NOT NULL CHECK (rating IN ('none', 'moderate', 'violent')),
  tags       TEXT NOT NULL,
  editor_id  INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (post_seq, number)
) WITHOUT ROWID;
-- Removing an account nulls editor_id; without this that would read every version.
CREATE INDEX post_versions_by_editor ON post_versions (editor_id) WHERE editor_id IS NOT NULL;

-- Posts from before this feature: version 1 is their current state, by no known editor, dated at
-- their last change.
INSERT INTO post_versions (post_seq, number, text, rating, tags, editor_id, created_at)
SELECT p.seq, 1, p.text, p.rating,
  (SELECT json_group_array(t.name ORDER BY t.name) FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_seq = p.seq),
  NULL, p.updated_at
FROM posts p;
