-- MariaDB's mark is a session variable: it lives as long as the connection unless cleared.
SET @fencing_migration = 'V3 backfill (test)';
UPDATE orders SET status = 'backfilled' WHERE id IN (1, 2);
UPDATE orders SET status = 'migrated' WHERE id = 1;
INSERT INTO migration_sessions VALUES ('3', CONNECTION_ID());
