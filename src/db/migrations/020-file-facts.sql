-- The stored file's MD5 (hex) and size in bytes (docs/decisions.md §20: the Danbooru API's `md5` and
-- `file_size`, the `md5:` metatag). Computed at upload; posts from before this migration are filled in
-- by the server's background backfill (src/posts/file-facts-runner.ts) in post-number order:
-- `md5 IS NULL` is its durable cursor, so it resumes after a restart.
ALTER TABLE posts ADD COLUMN md5 TEXT;
ALTER TABLE posts ADD COLUMN file_size INTEGER;
CREATE INDEX posts_by_md5 ON posts (md5) WHERE md5 IS NOT NULL;
CREATE INDEX posts_without_md5 ON posts (seq) WHERE md5 IS NULL;
