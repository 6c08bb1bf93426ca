-- Robust near-duplicates (docs/decisions.md §16): each post's robust descriptor, as
-- src/robust/format.ts encodes it (format byte, PDQ quality, the full hash and 20 window
-- hashes). NULL until the hash worker computed it: after an upload is answered, or by the server's
-- backfill, which fills NULLs in post-number order and so resumes where it stopped.
ALTER TABLE posts ADD COLUMN robust BLOB;

-- What the backfill asks for (posts still without a descriptor, in order): small once it is done.
CREATE INDEX posts_robust_pending ON posts (seq) WHERE robust IS NULL;
