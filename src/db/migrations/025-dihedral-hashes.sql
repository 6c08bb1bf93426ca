-- The post page's similar images (docs/decisions.md §24): each post's hash under the eight symmetries of the
-- square, as src/kernel/dihedral-hashes.ts encodes them (8 bytes each, in TRANSFORMS order; an empty blob when
-- the picture cannot be hashed again, e.g. a moving picture, whose lookup then uses its own hash alone). Set at
-- upload; NULL for a post from before this migration until the server's backfill reaches it, in post-number
-- order, so it resumes where it stopped.
ALTER TABLE posts ADD COLUMN dihedral BLOB;

-- What the backfill asks for (posts still without them, in order): small once it is done.
CREATE INDEX posts_dihedral_pending ON posts (seq) WHERE dihedral IS NULL;
