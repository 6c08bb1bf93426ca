-- Thumbnails are made after the upload's response (docs/decisions.md §13). Each new post queues its
-- thumbnail work here in the post's own transaction, so a crash after the 201 still ends with
-- thumbnails: the server works through this table in the background and again after a restart.
-- claimed_by / claimed_until: a lease, so the server and a CLI command never make the same
-- thumbnails at once and a crashed worker's job is taken up again when its lease runs out.
-- A deleted post's job goes with it.
CREATE TABLE thumbnail_jobs (
  post_id       TEXT PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  image         TEXT NOT NULL, -- <id>.<ext>, the source of the thumbnails
  created_at    TEXT NOT NULL,
  attempts      INTEGER NOT NULL DEFAULT 0,
  not_before    TEXT,          -- retry after a failure
  claimed_by    TEXT,
  claimed_until TEXT,
  last_error    TEXT
);
