-- Every table the contract needs. Times are ISO 8601 UTC strings with milliseconds.

CREATE TABLE users (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
  email         TEXT,
  password_hash TEXT NOT NULL,
  -- Returned by GET /api/account, so kept; looked up by its SHA-256 digest and compared in constant time.
  access_key    TEXT NOT NULL,
  access_key_digest BLOB NOT NULL UNIQUE,
  permission    INTEGER NOT NULL,
  created_at    TEXT NOT NULL
);

CREATE TABLE posts (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT, -- the post number (webhook ImageID, /image/search id)
  id          TEXT NOT NULL UNIQUE,              -- UUID v7
  text        TEXT NOT NULL,
  rating      TEXT NOT NULL CHECK (rating IN ('none', 'moderate', 'violent')),
  ext         TEXT NOT NULL,
  mime        TEXT NOT NULL,
  width       INTEGER NOT NULL,
  height      INTEGER NOT NULL,
  hash        TEXT NOT NULL CHECK (length(hash) = 64),
  uploader_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  aggr        REAL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  -- Bumped by every change; the Elasticsearch document carries it as an external version,
  -- so a replayed or late change never overwrites a newer one.
  version     INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX posts_by_created ON posts (created_at DESC, id);
CREATE INDEX posts_by_uploader ON posts (uploader_id);

CREATE TABLE tags (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE post_tags (
  post_seq INTEGER NOT NULL REFERENCES posts(seq) ON DELETE CASCADE,
  tag_id   INTEGER NOT NULL REFERENCES tags(id),
  PRIMARY KEY (post_seq, tag_id)
) WITHOUT ROWID;
CREATE INDEX post_tags_by_tag ON post_tags (tag_id, post_seq);

-- One row per post change, written in the same transaction as the change.
-- The relay applies it to Elasticsearch (indexed_at); webhook deliveries reference it.
CREATE TABLE outbox (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  event        TEXT NOT NULL CHECK (event IN ('create', 'update', 'delete', 'reindex')), -- reindex: index only, no webhook
  post_id      TEXT NOT NULL,
  post_version INTEGER NOT NULL,
  initiator_id INTEGER,
  payload      TEXT NOT NULL, -- JSON: the post after the change (before it, for delete) and, for update, the old metadata
  created_at   TEXT NOT NULL,
  indexed_at   TEXT,
  attempts     INTEGER NOT NULL DEFAULT 0,
  last_error   TEXT
);
CREATE INDEX outbox_pending ON outbox (id) WHERE indexed_at IS NULL;

CREATE TABLE webhooks (
  id            TEXT PRIMARY KEY, -- UUID
  owner_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label         TEXT,
  url           TEXT NOT NULL,
  secret        TEXT NOT NULL,
  events        TEXT NOT NULL, -- JSON array of 'create' | 'update' | 'delete'
  template      TEXT,
  state         TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'suspended')),
  failure_count INTEGER NOT NULL DEFAULT 0,
  last_delivery_at     TEXT,
  last_response_status INTEGER,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX webhooks_by_owner ON webhooks (owner_id);

-- One row per (event, subscribed webhook), committed with the post change.
CREATE TABLE webhook_deliveries (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT, -- event order per webhook
  id          TEXT NOT NULL UNIQUE,              -- X-Webhook-Delivery
  webhook_id  TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  outbox_id   INTEGER NOT NULL REFERENCES outbox(id),
  status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'dropped')),
  created_at  TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, seq) WHERE status = 'pending';

-- Every attempt, listed by GET /api/webhook/[id]/deliveries.
CREATE TABLE webhook_attempts (
  id              INTEGER PRIMARY KEY,
  delivery_id     TEXT NOT NULL,
  webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event           TEXT NOT NULL,
  post_id         TEXT NOT NULL,
  outcome         TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
  response_status INTEGER,
  error           TEXT,
  duration_ms     INTEGER NOT NULL,
  attempted_at    TEXT NOT NULL
);
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id DESC);
