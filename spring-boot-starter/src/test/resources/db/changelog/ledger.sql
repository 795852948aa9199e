--liquibase formatted sql

--changeset fencing:1
CREATE TABLE ledger (
    id         BIGINT PRIMARY KEY,
    amount     BIGINT NOT NULL,
    last_fence BIGINT NOT NULL DEFAULT 0
);
