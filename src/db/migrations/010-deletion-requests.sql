-- Deletion requests (docs/decisions.md §15): anyone signed in asks for a post's removal with a reason; a
-- holder of 0x2000 approves (the post is deleted) or dismisses it; the requester may revoke it.
-- Rows outlive their post and their people: post_id has no foreign key (an approved request must
-- still say which post it removed), and requester/decider names are kept beside their ids, so a
-- request keeps who, why, when, who decided and when even after an account is removed.
CREATE TABLE deletion_requests (
  id             INTEGER PRIMARY KEY,
  post_id        TEXT NOT NULL,
  requester_id   INTEGER NOT NULL,
  requester_name TEXT NOT NULL,
  reason         TEXT NOT NULL,
  status         TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'approved', 'dismissed', 'revoked', 'moot')),
  created_at     TEXT NOT NULL,
  decided_by_id  INTEGER,
  decided_by_name TEXT,
  decided_at     TEXT
);
-- One pending request per account and post: a second one is refused (409) by this, not by a race.
CREATE UNIQUE INDEX deletion_requests_one_pending ON deletion_requests (post_id, requester_id) WHERE status = 'pending';
-- The moderation queue and each requester's own list, newest first.
CREATE INDEX deletion_requests_by_status ON deletion_requests (status, id);
CREATE INDEX deletion_requests_by_requester ON deletion_requests (requester_id, id);
