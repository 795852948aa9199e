package dev.fencing.proof.oracle;

import dev.fencing.internal.sql.Dialect;

import java.util.List;
import java.util.Locale;

/**
 * One database with one set of session settings that change how it reads a text. The oracle runs
 * every setting on a connection of its own, set up once; the analyzer sees only the dialect (it
 * cannot know the session's settings), which is exactly what the oracle tests.
 */
record Setting(Database database, String name, List<String> sessionSql) {

    /** The databases the oracle asks. */
    enum Database {
        POSTGRESQL(Dialect.POSTGRESQL), MARIADB(Dialect.MARIADB), H2(Dialect.H2);

        final Dialect dialect;

        Database(Dialect dialect) {
            this.dialect = dialect;
        }

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Every setting the oracle runs, per database. */
    static List<Setting> of(Database database) {
        return switch (database) {
            case POSTGRESQL -> List.of(
                    new Setting(database, "standard_conforming_strings=on", List.of("SET standard_conforming_strings = on")),
                    new Setting(database, "standard_conforming_strings=off", List.of("SET standard_conforming_strings = off")));
            case MARIADB -> List.of(
                    mariaDb(""),
                    mariaDb("NO_BACKSLASH_ESCAPES"),
                    mariaDb("ANSI_QUOTES"),
                    mariaDb("ANSI_QUOTES,NO_BACKSLASH_ESCAPES"),
                    // the client character set besides utf8mb4 that the driver admits non-ASCII text in
                    mariaDbCharacterSet("utf8mb3"));
            // The compatibility modes the H2 manual lists for the databases fencing-jdbc users come from.
            case H2 -> List.of(h2("REGULAR"), h2("PostgreSQL"), h2("MySQL"), h2("MariaDB"), h2("MSSQLServer"),
                    h2("Oracle"), h2("LEGACY"));
        };
    }

    private static Setting mariaDb(String flags) {
        // The server's default modes stay (a session starts with them); only the lexing flags are added.
        String sql = flags.isEmpty() ? "SET SESSION sql_mode = @@global.sql_mode"
                : "SET SESSION sql_mode = CONCAT(@@global.sql_mode, '," + flags + "')";
        return new Setting(Database.MARIADB, flags.isEmpty() ? "sql_mode=default" : "sql_mode+=" + flags, List.of(sql));
    }

    private static Setting mariaDbCharacterSet(String characterSet) {
        return new Setting(Database.MARIADB, "character_set_client=" + characterSet,
                List.of("SET SESSION sql_mode = @@global.sql_mode", "SET NAMES " + characterSet));
    }

    private static Setting h2(String mode) {
        return new Setting(Database.H2, "MODE=" + mode, List.of("SET MODE " + mode));
    }

    /** The identifier used in corpus files: {@code database/setting}. */
    String id() {
        return database.id() + "/" + name;
    }

    static Setting byId(String id) {
        for (Database database : Database.values()) {
            for (Setting setting : of(database)) {
                if (setting.id().equals(id)) {
                    return setting;
                }
            }
        }
        throw new IllegalArgumentException("no oracle setting " + id + "; the settings are listed in Setting.of");
    }

    @Override
    public String toString() {
        return id();
    }
}
