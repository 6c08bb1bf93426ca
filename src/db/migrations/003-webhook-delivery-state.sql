-- Webhook delivery bookkeeping the dispatcher needs beyond 001's tables.
-- initiator_name: the initiator's name when the event happened (the template's Initiator.Username),
--   so the body does not change if the account is renamed or removed before the send.
-- attempts / next_attempt_at: a failed delivery is retried (with backoff) until the webhook's third
--   consecutive failure suspends it; the schedule survives a restart.
-- claimed_by / claimed_until: a lease on the delivery being sent, so two processes on one DATA_DIR
--   (the server and a CLI command) never send the same webhook's deliveries at once.
ALTER TABLE webhook_deliveries ADD COLUMN initiator_name TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN next_attempt_at TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN claimed_until TEXT;
