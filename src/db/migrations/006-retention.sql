-- Retention (docs/decisions.md §13) removes settled webhook deliveries, then the indexed outbox rows no
-- delivery references any more, in small batches. These indexes keep each batch a short range
-- read instead of a scan of the table.
CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (finished_at) WHERE status <> 'pending';
CREATE INDEX webhook_deliveries_by_outbox ON webhook_deliveries (outbox_id);
