-- Tag governance (docs/decisions.md §15): aliases, implications and the jobs that apply implications to
-- existing posts. Owned by the kernel (src/kernel/tag-rules.ts, src/kernel/tag-jobs.ts), which
-- resolves every tag set through them before it stores it, so no write path can forget them.

-- `name` is an alias of `target`: writes naming it store the target, searches naming it mean it.
-- An alias is never a target and a target is never an alias (checked on write).
CREATE TABLE tag_aliases (
  name       TEXT PRIMARY KEY,
  folded     TEXT NOT NULL,           -- for GET /api/tag?prefix (src/kernel/tag-fold.ts)
  target     TEXT NOT NULL,
  creator_id INTEGER,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX tag_aliases_by_target ON tag_aliases (target);
CREATE INDEX tag_aliases_by_folded ON tag_aliases (folded);

-- A post carrying `tag` also carries `implies` (transitively; no cycles, checked on write).
CREATE TABLE tag_implications (
  tag        TEXT NOT NULL,
  implies    TEXT NOT NULL,
  creator_id INTEGER,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tag, implies)
) WITHOUT ROWID;
CREATE INDEX tag_implications_by_implied ON tag_implications (implies, tag);

-- Applying an implication to existing posts: a durable job. `cursor` is the last post number
-- done; it moves in the same transaction as the batch of edits, so after a crash the job resumes
-- exactly where its last committed batch ended and no post is edited twice.
CREATE TABLE tag_jobs (
  id             INTEGER PRIMARY KEY,
  tag            TEXT NOT NULL,
  implies        TEXT NOT NULL,
  initiator_id   INTEGER,
  initiator_name TEXT,
  cursor         INTEGER NOT NULL DEFAULT 0,
  last_seq       INTEGER NOT NULL,          -- the highest post number when the job began
  scanned        INTEGER NOT NULL DEFAULT 0,
  changed        INTEGER NOT NULL DEFAULT 0,
  state          TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done')),
  created_at     TEXT NOT NULL,
  finished_at    TEXT
);
CREATE INDEX tag_jobs_running ON tag_jobs (id) WHERE state = 'running';
