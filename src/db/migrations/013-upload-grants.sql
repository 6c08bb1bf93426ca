-- Direct uploads (issue 26): POST /api/post/upload-url grants one user a presigned PUT to a fresh
-- object key in the S3 store; the create that names the key claims it. The row is the journal of
-- that object: it is written before the URL is handed out, so an object put under a key that is
-- never claimed (or a claim a crash interrupted) is always found and deleted by the media sweep.
-- Times are milliseconds since the epoch (the sweep compares them).
CREATE TABLE upload_grants (
  id           TEXT PRIMARY KEY,      -- the key the client names (a UUIDv7); the object is uploads/<id>
  user_id      INTEGER NOT NULL,      -- only this account may claim it (no foreign key: the row outlives a removed account until swept)
  content_type TEXT NOT NULL,         -- signed into the URL: the PUT must send it
  size         INTEGER,               -- signed into the URL when the client gave it
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,      -- neither the PUT nor the claim is accepted after this
  claimed_at   INTEGER,               -- set while a create reads the object; cleared again when that create fails
  post_id      TEXT                   -- the post the upload became: the key is used (the row stays until the grant expires)
);
CREATE INDEX upload_grants_by_expiry ON upload_grants (expires_at);
