-- Flyway runs on the unwrapped data source (the starter sees to it): DDL on a fenced table is
-- refused on fenced connections.
CREATE TABLE orders (
    id          BIGINT PRIMARY KEY,
    status      VARCHAR(20) NOT NULL,
    paid_amount BIGINT NOT NULL DEFAULT 0,
    last_fence  BIGINT NOT NULL DEFAULT 0
);
