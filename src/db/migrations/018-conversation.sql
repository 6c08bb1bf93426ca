-- Conversation (docs/decisions.md §18): comments, votes, blacklists, the comment bit.
-- The post kernel owns comments and votes (their counts and who commented go into the search
-- document, as favorites do). Neither is a post edit: no version, no webhook.

CREATE TABLE comments (
  id          INTEGER PRIMARY KEY,
  post_seq    INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  -- NULL once the account is deleted: the comment stays, authored by nobody (as posts are disowned)
  author_id   INTEGER REFERENCES users(id) ON DELETE SET NULL,
  body        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  edited      INTEGER NOT NULL DEFAULT 0 CHECK (edited IN (0, 1))
);
CREATE INDEX comments_by_post ON comments (post_seq, id);
CREATE INDEX comments_by_author ON comments (author_id, id);

CREATE TABLE votes (
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  post_seq    INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  value       INTEGER NOT NULL CHECK (value IN (1, -1)),
  created_at  TEXT NOT NULL,
  PRIMARY KEY (user_id, post_seq)
) WITHOUT ROWID;
CREATE INDEX votes_by_post ON votes (post_seq, user_id);

-- The counts, exact inside every write: kept by triggers, so a vote, its change or removal, a comment,
-- its deletion, a merge's move and the cascades of a post's or an account's deletion all count in
-- their own transaction. The score is upvotes - downvotes.
ALTER TABLE posts ADD COLUMN upvotes INTEGER NOT NULL DEFAULT 0 CHECK (upvotes >= 0);
ALTER TABLE posts ADD COLUMN downvotes INTEGER NOT NULL DEFAULT 0 CHECK (downvotes >= 0);
ALTER TABLE posts ADD COLUMN comments INTEGER NOT NULL DEFAULT 0 CHECK (comments >= 0);

CREATE TRIGGER votes_count_insert AFTER INSERT ON votes BEGIN
  UPDATE posts SET upvotes = upvotes + (NEW.value = 1), downvotes = downvotes + (NEW.value = -1)
  WHERE seq = NEW.post_seq;
END;
CREATE TRIGGER votes_count_delete AFTER DELETE ON votes BEGIN
  UPDATE posts SET upvotes = upvotes - (OLD.value = 1), downvotes = downvotes - (OLD.value = -1)
  WHERE seq = OLD.post_seq;
END;
CREATE TRIGGER votes_count_update AFTER UPDATE OF value, post_seq ON votes BEGIN
  UPDATE posts SET upvotes = upvotes - (OLD.value = 1), downvotes = downvotes - (OLD.value = -1)
  WHERE seq = OLD.post_seq;
  UPDATE posts SET upvotes = upvotes + (NEW.value = 1), downvotes = downvotes + (NEW.value = -1)
  WHERE seq = NEW.post_seq;
END;
CREATE TRIGGER comments_count_insert AFTER INSERT ON comments BEGIN
  UPDATE posts SET comments = comments + 1 WHERE seq = NEW.post_seq;
END;
CREATE TRIGGER comments_count_delete AFTER DELETE ON comments BEGIN
  UPDATE posts SET comments = comments - 1 WHERE seq = OLD.post_seq;
END;
CREATE TRIGGER comments_count_move AFTER UPDATE OF post_seq ON comments BEGIN
  UPDATE posts SET comments = comments - 1 WHERE seq = OLD.post_seq;
  UPDATE posts SET comments = comments + 1 WHERE seq = NEW.post_seq;
END;

-- Blacklists: lines of tags (JSON array of strings); the gallery applies them.
ALTER TABLE user_preferences ADD COLUMN blacklist TEXT NOT NULL DEFAULT '[]';

-- The comment bit: every account that may upload may comment.
UPDATE users SET permission = permission | 16384 WHERE (permission & 2) = 2;
