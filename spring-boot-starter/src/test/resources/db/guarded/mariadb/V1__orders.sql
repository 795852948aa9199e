-- A fenced table, a function that writes it, and the rows the data migration below rewrites.
CREATE TABLE orders (
    id         BIGINT PRIMARY KEY,
    status     VARCHAR(20) NOT NULL,
    last_fence BIGINT NOT NULL DEFAULT 0
);
DELIMITER //
CREATE FUNCTION pay(order_id BIGINT) RETURNS INT MODIFIES SQL DATA
    BEGIN UPDATE orders SET status = 'paid' WHERE id = order_id; RETURN 1; END //
DELIMITER ;
-- Which server session ran the migrations: the test checks that its application code gets the same one.
CREATE TABLE migration_sessions (version VARCHAR(10) PRIMARY KEY, session_id BIGINT NOT NULL);
INSERT INTO orders (id, status) VALUES (1, 'new'), (2, 'new'), (3, 'new');
