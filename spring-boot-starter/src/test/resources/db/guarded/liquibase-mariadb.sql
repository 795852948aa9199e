--liquibase formatted sql

--changeset fencing-test:backfill
-- MariaDB's mark is a session variable: it lives as long as the connection unless cleared.
SET @fencing_migration = 'backfill (test)';
UPDATE orders SET status = 'migrated' WHERE id = 1;
