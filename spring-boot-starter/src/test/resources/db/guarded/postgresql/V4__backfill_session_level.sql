-- The old, session-level form (false): without the starter's clearing it would stay on the pooled connection.
SELECT set_config('fencing.migration', 'V4 backfill (test)', false);
UPDATE orders SET status = 'migrated' WHERE id = 1;
INSERT INTO migration_sessions VALUES ('4', pg_backend_pid());
