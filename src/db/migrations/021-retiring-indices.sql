-- Posts indices `imgpost reindex` replaces, until they are deleted (src/search/retirement.ts). A row
-- is written before the alias swap, so a reindex that dies right after it still has its previous index
-- removed: the server's loop (and the next reindex) closes it a grace period after the swap was seen,
-- then deletes it once every process's cached list of write targets has expired since the close.
-- Times are milliseconds since the epoch; NULL: that step has not happened yet.
CREATE TABLE retiring_indices (
  name TEXT PRIMARY KEY,
  unaliased_at INTEGER,
  closed_at INTEGER
);
