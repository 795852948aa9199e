package dev.fencing.internal.guard;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.internal.config.TableName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The guard's DDL and its verification on one kind of database. */
interface DialectGuard {

    /** The real tables to guard: each configured table in every schema it exists in, with its children. */
    List<GuardTarget> targets(Connection connection, FencingConfig config) throws SQLException;

    /** The statements that install (or update) the guard on {@code targets}; idempotent. */
    List<String> install(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException;

    /** The statements that remove it. */
    List<String> remove(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException;

    /**
     * What is missing or outdated in what decides how the guard treats writes, one line per table
     * or object; empty when the guard is current. {@code fencing.database-guard=required} checks this.
     */
    List<String> problems(Connection connection, List<GuardTarget> targets, FencingConfig config) throws SQLException;

    /**
     * What is missing or outdated in what refuses DDL that would get past the guard (PostgreSQL's
     * event triggers); {@code verify} reports it too, {@code required} does not need it.
     */
    default List<String> ddlProblems(Connection connection, List<GuardTarget> targets, FencingConfig config)
            throws SQLException {
        return List.of();
    }

    /** The part of {@code ddl} the connection's role may run; says (logged) what it leaves out and why. */
    default List<String> installable(Connection connection, List<String> ddl) throws SQLException {
        return ddl;
    }

    /**
     * Each configured table in every schema it exists in, in the table's mode. {@code sql} takes the
     * folded table name, whether the configuration names no schema, and the folded schema, and
     * returns each match's schema and table; {@code alsoGuarded} adds what holds the table's rows
     * too (PostgreSQL's partitions and inheritance children).
     */
    static List<GuardTarget> configuredTables(Connection connection, FencingConfig config, String sql,
                                              AlsoGuarded alsoGuarded) throws SQLException {
        FencedTableSet tables = FencedTableSet.of(config);
        Set<GuardTarget> found = new LinkedHashSet<>();
        for (TableName name : tables.names()) {
            try (PreparedStatement query = connection.prepareStatement(sql)) {
                query.setString(1, name.table());
                query.setBoolean(2, name.schema() == null);
                query.setString(3, name.schema() == null ? "" : name.schema());
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        GuardTarget target = new GuardTarget(rows.getString(1), rows.getString(2), tables.modeOf(name), false);
                        if (found.add(target)) {
                            alsoGuarded.add(connection, target, found);
                        }
                    }
                }
            }
        }
        return new ArrayList<>(found);
    }

    /** Adds to {@code found} the tables that hold rows of {@code target} too. */
    @FunctionalInterface
    interface AlsoGuarded {
        AlsoGuarded NOTHING = (connection, target, found) -> { };

        void add(Connection connection, GuardTarget target, Set<GuardTarget> found) throws SQLException;
    }
}
