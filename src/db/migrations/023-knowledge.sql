-- Knowledge (docs/decisions.md §23): tag wiki pages and notes over images, each with its versions.
-- Neither is a post edit: a note changes its post's search fields (hasNotes, order:note) through a
-- 'reindex' outbox row, with no post version and no webhook.

-- One page per tag name. Keyed by the name, not by the tags row: a page may be written before any post
-- carries the tag, and outlives a rename or a merge (the alias's target reads it, see the service).
CREATE TABLE wiki_pages (
  id          INTEGER PRIMARY KEY,
  tag         TEXT NOT NULL UNIQUE,
  body        TEXT NOT NULL,
  -- JSON array of strings
  other_names TEXT NOT NULL DEFAULT '[]',
  locked      INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
  version     INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  -- NULL once the account is deleted: the edit stays, by nobody
  editor_id   INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE wiki_versions (
  page_id     INTEGER NOT NULL REFERENCES wiki_pages(id) ON DELETE CASCADE,
  version     INTEGER NOT NULL,
  body        TEXT NOT NULL,
  other_names TEXT NOT NULL,
  editor_id   INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (page_id, version)
) WITHOUT ROWID;

-- A box over a post's image, in the image's pixels.
CREATE TABLE notes (
  id          INTEGER PRIMARY KEY,
  post_seq    INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  x           INTEGER NOT NULL CHECK (x >= 0),
  y           INTEGER NOT NULL CHECK (y >= 0),
  width       INTEGER NOT NULL CHECK (width >= 1),
  height      INTEGER NOT NULL CHECK (height >= 1),
  body        TEXT NOT NULL,
  version     INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  author_id   INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX notes_by_post ON notes (post_seq, id);

CREATE TABLE note_versions (
  note_id     INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
  version     INTEGER NOT NULL,
  x           INTEGER NOT NULL,
  y           INTEGER NOT NULL,
  width       INTEGER NOT NULL,
  height      INTEGER NOT NULL,
  body        TEXT NOT NULL,
  editor_id   INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (note_id, version)
) WITHOUT ROWID;

-- A post's notes as its record carries them (Danbooru's last_noted_at, the search's hasNotes and
-- order:note): kept by triggers, so a note, its edit, its move in a merge and its deletion count in
-- their own transaction, as comments do (migration 018).
ALTER TABLE posts ADD COLUMN notes INTEGER NOT NULL DEFAULT 0 CHECK (notes >= 0);
ALTER TABLE posts ADD COLUMN last_noted_at TEXT;

CREATE TRIGGER notes_count_insert AFTER INSERT ON notes BEGIN
  UPDATE posts SET notes = notes + 1, last_noted_at = NEW.updated_at WHERE seq = NEW.post_seq;
END;
CREATE TRIGGER notes_count_delete AFTER DELETE ON notes BEGIN
  UPDATE posts SET notes = notes - 1,
    last_noted_at = CASE WHEN notes - 1 = 0 THEN NULL ELSE last_noted_at END
  WHERE seq = OLD.post_seq;
END;
CREATE TRIGGER notes_count_update AFTER UPDATE OF post_seq, x, y, width, height, body ON notes BEGIN
  UPDATE posts SET notes = notes - 1, last_noted_at = CASE WHEN notes - 1 = 0 THEN NULL ELSE last_noted_at END
  WHERE seq = OLD.post_seq AND OLD.post_seq <> NEW.post_seq;
  UPDATE posts SET notes = notes + (OLD.post_seq <> NEW.post_seq), last_noted_at = NEW.updated_at
  WHERE seq = NEW.post_seq;
END;
