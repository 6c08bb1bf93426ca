-- Tags with counts (docs/decisions.md §10): how many posts carry each tag, exact inside every write.
-- post_count is kept by triggers on post_tags, so every path that links or unlinks a tag (create,
-- edit, revert, import, and a post's delete through the cascade) counts in its own transaction.
ALTER TABLE tags ADD COLUMN post_count INTEGER NOT NULL DEFAULT 0 CHECK (post_count >= 0);
-- The name case-folded (src/tags/fold.ts) for case-insensitive prefix search. Folding is Unicode
-- aware, which SQLite's lower() is not, so it is computed where tags are written; rows written
-- before this migration start NULL and are filled at start-up (TagRepository.foldMissing).
ALTER TABLE tags ADD COLUMN folded TEXT;

UPDATE tags SET post_count = (SELECT count(*) FROM post_tags WHERE tag_id = tags.id);

CREATE TRIGGER post_tags_count_insert AFTER INSERT ON post_tags BEGIN
  UPDATE tags SET post_count = post_count + 1 WHERE id = NEW.tag_id;
END;
CREATE TRIGGER post_tags_count_delete AFTER DELETE ON post_tags BEGIN
  UPDATE tags SET post_count = post_count - 1 WHERE id = OLD.tag_id;
END;

-- Only tags some post carries are ever listed, so both indexes leave the rest out.
-- All tags by count: read in order, no sort.
CREATE INDEX tags_by_count ON tags (post_count DESC, name) WHERE post_count > 0;
-- A prefix is a range of folded names; post_count rides along so counting needs no table reads.
CREATE INDEX tags_by_folded ON tags (folded, post_count) WHERE post_count > 0;
CREATE INDEX tags_unfolded ON tags (id) WHERE folded IS NULL;
