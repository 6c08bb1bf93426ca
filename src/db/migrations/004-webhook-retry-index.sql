-- The dispatcher asks after every send when the earliest scheduled retry falls due. Without this
-- index that question read every pending delivery: 10 ms at 60,000 pending, once per send, so a
-- backlog slowed its own draining (measured in the load run of bench/load).
CREATE INDEX webhook_deliveries_retry ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
