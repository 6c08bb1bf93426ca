-- Ten million posts (docs/decisions.md §24).

-- The post page's similar images (docs/decisions.md §24): each post's hash under the eight symmetries of the
-- square, as src/kernel/dihedral-hashes.ts encodes them (8 bytes each, in TRANSFORMS order; an empty blob when
-- the picture cannot be hashed again, e.g. a moving picture, whose lookup then uses its own hash alone). Set at
-- upload; NULL for a post from before this migration until the server's backfill reaches it, in post-number
-- order, so it resumes where it stopped.
ALTER TABLE posts ADD COLUMN dihedral BLOB;

-- What the backfill asks for (posts still without them, in order): small once it is done.
CREATE INDEX posts_dihedral_pending ON posts (seq) WHERE dihedral IS NULL;

-- The number of posts (docs/decisions.md §24), kept by triggers in each write's own transaction: the newest-first
-- list answers its count without walking an index of every post (SELECT count(*) reads them all).
CREATE TABLE post_total (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT INTO post_total (id, n) SELECT 1, count(*) FROM posts;
CREATE TRIGGER post_total_insert AFTER INSERT ON posts BEGIN
  UPDATE post_total SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER post_total_delete AFTER DELETE ON posts BEGIN
  UPDATE post_total SET n = n - 1 WHERE id = 1;
END;
