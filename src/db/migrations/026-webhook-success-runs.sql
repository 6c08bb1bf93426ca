-- A webhook's successes in a row (docs/decisions.md §8) are stored as one row per batch of results: the row's
-- columns are the last of them, `earlier` the ones before it, oldest first (a JSON array of
-- [delivery id, event, post id, response status, duration ms, attempted at]), and `attempts` how many the row
-- holds. An attempt row per success was the largest single cost of a webhook drain on the dispatcher's thread
-- (bench/notes/webhook-drain.md, session 37). A failure is a row of its own, as before; so are rows from
-- before this migration.
ALTER TABLE webhook_attempts ADD COLUMN earlier TEXT;
ALTER TABLE webhook_attempts ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;

-- Every attempt, one row each, in order (id, then pos): for reading by hand and for checks over all of them.
-- The API reads the latest few through src/webhook-store/attempts.ts instead, which stops once it has them.
CREATE VIEW webhook_attempts_each AS
  SELECT id, attempts - 1 AS pos, webhook_id, delivery_id, event, post_id, outcome, response_status, error,
         duration_ms, attempted_at
  FROM webhook_attempts
  UNION ALL
  SELECT a.id, e.key, a.webhook_id, e.value ->> 0, e.value ->> 1, e.value ->> 2, 'success', e.value ->> 3, NULL,
         e.value ->> 4, e.value ->> 5
  FROM webhook_attempts a, json_each(a.earlier) e
  WHERE a.earlier IS NOT NULL;
