--liquibase formatted sql

--changeset fencing-test:backfill
-- The session-level form (false): Liquibase keeps its connection for the whole run and gives it back to the pool.
SELECT set_config('fencing.migration', 'backfill (test)', false);
UPDATE orders SET status = 'migrated' WHERE id = 1;
