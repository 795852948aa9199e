-- The documented form: the mark is transaction-local, so it ends with this migration's transaction.
SELECT set_config('fencing.migration', 'V3 backfill (test)', true);
UPDATE orders SET status = 'backfilled' WHERE id IN (1, 2);
INSERT INTO migration_sessions VALUES ('3', pg_backend_pid());
