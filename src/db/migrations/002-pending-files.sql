-- Image files whose fate hangs on a transaction: a new file before its post row commits, a
-- deleted post's file before it is unlinked. Start-up recovery removes each file here that no
-- post references, so a crash at any point leaves no orphan file and no post without its file.
CREATE TABLE pending_files (
  path       TEXT PRIMARY KEY,
  post_id    TEXT NOT NULL,
  created_at TEXT NOT NULL
);
