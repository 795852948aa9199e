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
import java.util.Locale;
import java.util.Set;

/** The guard's DDL and its verification on one kind of database. */
interface DialectGuard {

    /** The session fence of {@code database}, the driver's connection: how this database hands the triggers the fence. */
    SessionFence sessionFence(Connection database);

    /**
     * The real tables to guard: each configured table in the schemas the application uses
     * ({@link #scope}), or in the schema its qualified name gives, with its children.
     */
    List<GuardTarget> targets(Connection connection, FencingConfig config) throws SQLException;

    /**
     * What matches a configured name but lies outside the schemas the guard covers, one line each
     * (MariaDB: also cascading parents there); a warning, never a failure of {@code verify}.
     */
    List<String> uncovered(Connection connection, FencingConfig config, List<GuardTarget> targets) throws SQLException;

    /** The schemas (MariaDB: databases) the connection itself uses for unqualified names, as the catalog spells them. */
    List<String> connectionSchemas(Connection connection) throws SQLException;

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

    /**
     * The guarded tables (names folded to lower case, unqualified) whose writes run code of their
     * own before the statement's first row: PostgreSQL's BEFORE statement triggers and rewrite
     * rules. Such code runs before a spliced write's own text hands the fence over, so the driver
     * sets the fence first for writes to them.
     */
    default java.util.Set<String> runCodeBeforeTheirRows(Connection connection, List<GuardTarget> targets)
            throws SQLException {
        return java.util.Set.of();
    }

    /** The part of {@code ddl} the connection's role may run; says (logged) what it leaves out and why. */
    default List<String> installable(Connection connection, List<String> ddl) throws SQLException {
        return ddl;
    }

    /**
     * Where unqualified configured names are looked for: the connection's own schemas, then
     * {@code fencing.database-guard.schemas}; folded to lower case, without repeats.
     */
    default Set<String> scope(Connection connection, FencingConfig config) throws SQLException {
        Set<String> scope = new LinkedHashSet<>();
        for (String schema : connectionSchemas(connection)) {
            if (schema != null) {
                scope.add(schema.toLowerCase(Locale.ROOT));
            }
        }
        scope.addAll(config.guardSchemas());
        return scope;
    }

    /**
     * Each configured table in {@code scope} (an unqualified name) or in its own schema (a
     * qualified one), in the table's mode. {@code sql} takes the folded table name, whether the
     * configuration names no schema, and the folded schema, and returns each match's schema and
     * table in every schema; {@code alsoGuarded} adds what holds the table's rows too
     * (PostgreSQL's partitions and inheritance children, wherever they are). When {@code outside}
     * is not null, it receives the matches of unqualified names outside {@code scope} that are not
     * guarded anyway.
     */
    static List<GuardTarget> configuredTables(Connection connection, FencingConfig config, Set<String> scope,
                                              String sql, AlsoGuarded alsoGuarded, Set<GuardTarget> outside)
            throws SQLException {
        FencedTableSet tables = FencedTableSet.of(config);
        Set<GuardTarget> found = new LinkedHashSet<>();
        Set<GuardTarget> away = new LinkedHashSet<>();
        for (TableName name : tables.names()) {
            try (PreparedStatement query = connection.prepareStatement(sql)) {
                query.setString(1, name.table());
                query.setBoolean(2, name.schema() == null);
                query.setString(3, name.schema() == null ? "" : name.schema());
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        GuardTarget target = new GuardTarget(rows.getString(1), rows.getString(2), tables.modeOf(name), false);
                        if (name.schema() == null && !scope.contains(target.schema().toLowerCase(Locale.ROOT))) {
                            away.add(target);
                        } else if (found.add(target)) {
                            alsoGuarded.add(connection, target, found);
                        }
                    }
                }
            }
        }
        if (outside != null) {
            for (GuardTarget target : away) {
                if (found.stream().noneMatch(t -> t.schema().equals(target.schema()) && t.table().equals(target.table()))) {
                    outside.add(target);
                }
            }
        }
        return new ArrayList<>(found);
    }

    /** The warning for a table that matches a configured name outside the guard's schemas. */
    static String notCovered(GuardTarget target, Set<String> scope) {
        return "table " + target.qualified() + " matches fenced name " + target.table().toLowerCase(Locale.ROOT)
                + " but lies outside the schemas the guard covers here " + scope + ": it is not covered (name it"
                + " schema-qualified in fencing.tables or list its schema in fencing.database-guard.schemas to guard it)";
    }

    /** Adds to {@code found} the tables that hold rows of {@code target} too. */
    @FunctionalInterface
    interface AlsoGuarded {
        AlsoGuarded NOTHING = (connection, target, found) -> { };

        void add(Connection connection, GuardTarget target, Set<GuardTarget> found) throws SQLException;
    }
}
