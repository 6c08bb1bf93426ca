-- Robust descriptors, format 2 (src/robust/format.ts): a picture with a caption band
-- carries one more window (src/robust/band.ts). Format 1's descriptors (byte 0 = 1) are
-- cleared, so they count as not computed: the server's backfill computes them again in post-number
-- order (resumable, one transaction each) and each stored one reindexes its post. Until then such a
-- post has no robust matches, as a post whose descriptor was never computed.
UPDATE posts SET robust = NULL WHERE robust IS NOT NULL AND substr(robust, 1, 1) = X'01';
