-- The guard table of epoch mode (fencing.mode=epoch, docs/epoch.md): one row per lock, claimed by
-- each new tenure and checked by every write transaction. Row mode (the default) never reads it;
-- it is here so that switching the mode needs no migration.
CREATE TABLE IF NOT EXISTS fencing_epochs (
    lock_name VARCHAR(255) PRIMARY KEY,
    fence     BIGINT       NOT NULL
);
