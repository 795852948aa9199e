CREATE TABLE orders (
    id         BIGINT PRIMARY KEY,
    placed_on  DATE NOT NULL,
    amount     BIGINT NOT NULL
);

CREATE TABLE daily_totals (
    day        DATE PRIMARY KEY,
    orders     BIGINT NOT NULL,
    amount     BIGINT NOT NULL,
    last_fence BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE reservations (
    id         BIGINT PRIMARY KEY,
    status     VARCHAR(10) NOT NULL,
    held_until TIMESTAMP NOT NULL,
    last_fence BIGINT NOT NULL DEFAULT 0
);

INSERT INTO orders (id, placed_on, amount) VALUES (1, CURRENT_DATE, 250), (2, CURRENT_DATE, 100);
INSERT INTO reservations (id, status, held_until) VALUES
    (1, 'held', CURRENT_TIMESTAMP - INTERVAL '1 hour'),
    (2, 'held', CURRENT_TIMESTAMP + INTERVAL '1 day');
