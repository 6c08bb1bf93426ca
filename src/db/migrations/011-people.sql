-- People (docs/decisions.md §14): app keys, favorites, preferences.

-- App keys: a key with a subset of its owner's permission. Only the SHA-256 of the key is kept
-- (a key is 43 random characters, so no salt is needed); the key itself is shown once.
CREATE TABLE app_keys (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  key_digest  BLOB NOT NULL UNIQUE,
  permission  INTEGER NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX app_keys_by_user ON app_keys (user_id, id);

-- Favorites. The post kernel owns this table (the count and the favoriters go into the search
-- document). A favorite is not a post edit: no version, no webhook.
CREATE TABLE favorites (
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  post_seq    INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  -- the original's shortcut: a few letters that find this favorite first in quick search
  shortcut    TEXT COLLATE NOCASE,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (user_id, post_seq)
) WITHOUT ROWID;
CREATE INDEX favorites_by_post ON favorites (post_seq, user_id);
CREATE INDEX favorites_by_user_time ON favorites (user_id, created_at DESC, post_seq DESC);
CREATE UNIQUE INDEX favorites_shortcut ON favorites (user_id, shortcut) WHERE shortcut IS NOT NULL;

-- The count, exact inside every write: kept by triggers, so a favorite, an unfavorite, a user's
-- removal and a post's delete (both cascades) all count in their own transaction.
ALTER TABLE posts ADD COLUMN favorites INTEGER NOT NULL DEFAULT 0 CHECK (favorites >= 0);
CREATE TRIGGER favorites_count_insert AFTER INSERT ON favorites BEGIN
  UPDATE posts SET favorites = favorites + 1 WHERE seq = NEW.post_seq;
END;
CREATE TRIGGER favorites_count_delete AFTER DELETE ON favorites BEGIN
  UPDATE posts SET favorites = favorites - 1 WHERE seq = OLD.post_seq;
END;

-- Safe browsing: the ratings a person wants to see (JSON array); no row = the default.
CREATE TABLE user_preferences (
  user_id     INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  ratings     TEXT NOT NULL
);
