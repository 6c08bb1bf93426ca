-- Robust descriptors, format 3 (src/robust/format.ts): format 2's bytes plus the picture's
-- cells (src/robust/cells.ts). Format 2's descriptors are cleared, so they count as not
-- computed: the server's backfill computes them again in post-number order (resumable, one
-- transaction each) and each stored one reindexes its post; until then such a post has no robust
-- matches (as after migration 016). An unreadable picture's descriptor (format byte, quality 0, no
-- hashes) says the same in format 3, so it is rewritten instead of computed again.
UPDATE posts SET robust = X'0300' WHERE robust = X'0200';
UPDATE posts SET robust = NULL WHERE robust IS NOT NULL AND substr(robust, 1, 1) = X'02';
