package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** The guard's DDL and its verification on one kind of database. */
interface DialectGuard {

    /** The real tables to guard: each configured table in every schema it exists in, with its children. */
    List<GuardTarget> targets(Connection connection, FencingConfig config) throws SQLException;

    /** The statements that install (or update) the guard on {@code targets}; idempotent. */
    List<String> install(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException;

    /** The statements that remove it. */
    List<String> remove(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException;

    /** What is missing or outdated, one line per table or object; empty when the guard is current. */
    List<String> problems(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException;
}
