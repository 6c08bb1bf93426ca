-- Moving a board in (docs/decisions.md §22): where each imported post came from, the comments an
-- import brought (their authors' names as text), and the imports run.

-- One row per origin post: an import never brings the same (site, id) twice. post_seq is the post it
-- became or enriched; NULL once that post is deleted here, so a later import does not bring it back.
CREATE TABLE post_origins (
  site        TEXT NOT NULL,
  origin_id   TEXT NOT NULL,
  post_seq    INTEGER REFERENCES posts(seq) ON DELETE SET NULL,
  url         TEXT NOT NULL DEFAULT '',
  -- the uploader's name there (a legacy post keeps it here, §22)
  uploader    TEXT,
  -- facts about the origin, not votes of anyone here
  score       INTEGER,
  fav_count   INTEGER,
  -- 1: the origin post was a near-duplicate of a post here, which it enriched (tags, origin) instead
  enriched    INTEGER NOT NULL DEFAULT 0 CHECK (enriched IN (0, 1)),
  imported_at TEXT NOT NULL,
  PRIMARY KEY (site, origin_id)
) WITHOUT ROWID;
CREATE INDEX post_origins_by_post ON post_origins (post_seq);

-- A comment an import brought: its author's name there, and its key (site and comment id) so a
-- restarted import does not bring it twice.
ALTER TABLE comments ADD COLUMN origin_author TEXT;
ALTER TABLE comments ADD COLUMN origin_key TEXT;
CREATE UNIQUE INDEX comments_by_origin ON comments (origin_key) WHERE origin_key IS NOT NULL;

-- Past imports: what, when, how many (imgpost import --history).
CREATE TABLE import_runs (
  id          INTEGER PRIMARY KEY,
  source      TEXT NOT NULL,
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  imported    INTEGER NOT NULL DEFAULT 0,
  merged      INTEGER NOT NULL DEFAULT 0,
  already     INTEGER NOT NULL DEFAULT 0,
  refused     INTEGER NOT NULL DEFAULT 0
);
