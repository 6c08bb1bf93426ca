-- The media store in use, once `imgpost media migrate` has moved the images (issue 26). With no row,
-- MEDIA_STORE names the store. The server reads this row on every media operation, so a migration
-- switches a live server without a restart.
--
-- active          where new objects are written and read first: 'local' or 's3://bucket/prefix/'
-- migrating_from  set while the migration copies: reads of objects not copied yet fall back to it,
--                 deletes remove from both; NULL once every post's files are in `active`
-- upto_seq        the copy covers posts numbered up to this (the last one at the switch); later
--                 posts were written to `active` already
-- cursor_seq      the last post number whose files were copied and checked (the resume point)
-- in_flight       JSON array of post ids whose writes were journaled on the old store at the switch
--                 (pending_files): copied once those writes have settled
CREATE TABLE media_store (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  active          TEXT NOT NULL,
  migrating_from  TEXT,
  upto_seq        INTEGER NOT NULL DEFAULT 0,
  cursor_seq      INTEGER NOT NULL DEFAULT 0,
  in_flight       TEXT NOT NULL DEFAULT '[]',
  copied          INTEGER NOT NULL DEFAULT 0,
  switched_at     TEXT NOT NULL,
  finished_at     TEXT
);
