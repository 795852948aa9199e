package dev.fencing.proof;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A seeded generator of SQL around one fenced table ({@code orders}) and unfenced look-alikes
 * ({@code orders_archive}, same columns, and {@code customers}): UPDATE, DELETE, INSERT and
 * SELECT variants with aliases, schema qualification, random casing and quoting, comments and
 * odd whitespace in random places, parameters, CTEs (plain and data-modifying), several
 * statements per string, and garbage tokens spliced in.
 *
 * <p>One instance per generated statement: {@code new SqlFuzzer(seed, dialect, schema).statement()}
 * always returns the same text for the same arguments, so a failure is replayed from its seed.
 * Generated statements never assign the {@code id} column (so a row's identity is stable for the
 * snapshot checks), and no garbage token is {@code id}.
 */
final class SqlFuzzer {

    enum Flavor { POSTGRESQL, H2, MARIADB }

    private static final String[] KEYWORDS_AND_PUNCTUATION = {
            "(", ")", ";", ",", "'", "\"", "--", "/*", "*/", "$$", "\\", "?", "=", "*", ".", "`",
            "UPDATE", "SET", "WHERE", "FROM", "SELECT", "DELETE", "INSERT", "INTO", "VALUES", "RETURNING", "WITH",
            "AS", "ON", "CONFLICT", "DO", "NOTHING", "TRUNCATE", "MERGE", "USING", "JOIN", "AND", "OR", "NOT", "NULL",
            "orders", "ORDERS", "\"orders\"", "orders_archive", "customers", "last_fence", "LAST_FENCE", "status",
            "amount", "1", "0", "'x'", "E'\\''", "$a$", "{fn", "}", "/*!", "#", "//", "\r", "\n", "\t", "U&\"\\006f\"",
            "--1", "/*M!", "JOIN", "LIMIT", "IGNORE"};

    private final Random random;
    private final Flavor flavor;
    private final String schema;
    private final List<String> tokens = new ArrayList<>();

    private final boolean multiTable;

    SqlFuzzer(long seed, Flavor flavor, String schema) {
        this(seed, flavor, schema, false);
    }

    /**
     * @param multiTable MariaDB only: also generate multi-table UPDATE and DELETE (joins, comma
     *                   lists, DELETE t1, t2 FROM ..). Off by default: the driver let some of them
     *                   through unfenced when this suite was written (see the proof suite's report).
     */
    SqlFuzzer(long seed, Flavor flavor, String schema, boolean multiTable) {
        this.random = new Random(seed);
        this.flavor = flavor;
        this.schema = schema;
        this.multiTable = multiTable;
    }

    /** True when the generated text had garbage spliced in (it may well not parse). */
    private boolean garbage;

    boolean hadGarbage() {
        return garbage;
    }

    /** The generated SQL text. */
    String statement() {
        tokens.clear();
        int count = chance(25) ? 2 + random.nextInt(2) : 1;
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                tokens.add(";");
            }
            oneStatement();
        }
        if (chance(10)) {
            tokens.add(";");
        }
        if (chance(12)) {
            garbage = true;
            int mutations = 1 + random.nextInt(3);
            for (int i = 0; i < mutations; i++) {
                mutate();
            }
        }
        return render();
    }

    /** How many {@code ?} tokens the text has outside literals (the parameters to bind). */
    int placeholders() {
        int n = 0;
        for (String token : tokens) {
            if (token.equals("?")) {
                n++;
            }
        }
        return n;
    }

    /** A value for parameter {@code index}: a small number, a short string or null. */
    Object parameter(int index) {
        int pick = random.nextInt(10);
        if (pick < 6) {
            return (long) (1 + random.nextInt(5));
        }
        if (pick < 9) {
            return "p" + index;
        }
        return null;
    }

    private void oneStatement() {
        int pick = random.nextInt(100);
        if (pick < 30) {
            update();
        } else if (pick < 50) {
            delete();
        } else if (pick < 70) {
            insert();
        } else if (pick < 78) {
            select();
        } else if (pick < 90) {
            if (flavor == Flavor.POSTGRESQL || chance(15)) {
                cteThenWrite();       // H2 reads WITH only before SELECT: mostly syntax errors there
            } else {
                delete();
            }
        } else {
            if (flavor == Flavor.POSTGRESQL) {
                dataModifyingCte();
            } else if (flavor == Flavor.MARIADB && multiTable) {
                multiTableWrite();
            } else {
                update();
            }
        }
    }

    /** MariaDB's multi-table UPDATE and DELETE, with the fenced table first, second or as an alias. */
    private void multiTableWrite() {
        String fenced = chance(80) ? "orders" : "orders_archive";
        String value = literal();
        switch (random.nextInt(6)) {
            case 0 -> tokens.addAll(List.of("UPDATE", "customers", "c", "JOIN", fenced, "o", "ON", "o.cid", "=", "c.id",
                    "SET", "o.status", "=", value));
            case 1 -> tokens.addAll(List.of("UPDATE", fenced, "o", "JOIN", "customers", "c", "ON", "o.cid", "=", "c.id",
                    "SET", "o.status", "=", value, "WHERE", "c.name", "=", "'bob'"));
            case 2 -> tokens.addAll(List.of("UPDATE", "customers", ",", fenced, "SET", fenced + ".amount", "=",
                    fenced + ".amount", "+", "1", "WHERE", fenced + ".cid", "=", "customers.id"));
            case 3 -> tokens.addAll(List.of("DELETE", "o", "FROM", fenced, "o", "JOIN", "customers", "c", "ON", "o.cid", "=",
                    "c.id", "WHERE", "c.name", "=", "'bob'"));
            case 4 -> tokens.addAll(List.of("DELETE", "customers", ",", fenced, "FROM", "customers", "JOIN", fenced, "ON",
                    fenced + ".cid", "=", "customers.id", "WHERE", "customers.id", "=", "3"));
            default -> tokens.addAll(List.of("DELETE", "FROM", "customers", ",", fenced, "USING", "customers", ",", fenced,
                    "WHERE", fenced + ".cid", "=", "customers.id", "AND", "customers.id", "=", "3"));
        }
    }

    private void update() {
        add("UPDATE");
        if (flavor == Flavor.MARIADB && chance(15)) {
            add(chance(50) ? "LOW_PRIORITY" : "IGNORE");
        }
        String alias = table(true);
        add("SET");
        List<String> columns = new ArrayList<>(List.of("status", "amount", "cid"));
        java.util.Collections.shuffle(columns, random);
        int assignments = 1 + random.nextInt(2);
        for (int i = 0; i < assignments; i++) {
            if (i > 0) {
                add(",");
            }
            column(columns.get(i), alias, chance(30));
            add("=");
            value(columns.get(i));
        }
        if (chance(6)) {
            add(",");
            add(chance(50) ? "last_fence" : "LAST_FENCE");
            add("=");
            add(Integer.toString(random.nextInt(30)));
        }
        if (flavor == Flavor.POSTGRESQL && chance(15)) {
            add("FROM");
            add("customers");
            add("c");
            add("WHERE");
            add("c.id");
            add("=");
            add((alias == null ? currentTableRef : alias) + ".cid");
            if (chance(50)) {
                add("AND");
                predicate(alias);
            }
        } else if (chance(80)) {
            add("WHERE");
            predicate(alias);
        }
        orderAndLimit();
        returning(false);
    }

    /** MariaDB's single-table UPDATE and DELETE take ORDER BY and LIMIT after the WHERE. */
    private void orderAndLimit() {
        if (flavor == Flavor.MARIADB && chance(15)) {
            if (chance(60)) {
                add("ORDER");
                add("BY");
                add("id");
                if (chance(50)) {
                    add("DESC");
                }
            }
            add("LIMIT");
            add(Integer.toString(1 + random.nextInt(3)));
        }
    }

    private void delete() {
        add("DELETE");
        add("FROM");
        String alias = table(true);
        if (flavor == Flavor.POSTGRESQL && chance(15)) {
            add("USING");
            add("customers");
            add("c");
            add("WHERE");
            add("c.id");
            add("=");
            add((alias == null ? currentTableRef : alias) + ".cid");
        } else if (chance(85)) {
            add("WHERE");
            predicate(alias);
        }
        orderAndLimit();
        returning(true);
    }

    private void insert() {
        add("INSERT");
        if (flavor == Flavor.MARIADB && chance(10)) {
            add("IGNORE");
        }
        add("INTO");
        String alias = null;
        table(false);
        if (flavor == Flavor.POSTGRESQL && chance(20)) {
            add("AS");
            alias = "t";
            add(alias);
        }
        boolean setsFence = chance(5);
        add("(");
        add(caseOf("id"));
        add(",");
        add(caseOf("status"));
        if (setsFence) {
            add(",");
            add("last_fence");
        }
        add(")");
        if (chance(25)) {
            add("SELECT");
            add("id");
            add("+");
            add(Integer.toString(20 + random.nextInt(40)));
            add(",");
            add("name");
            if (setsFence) {
                add(",");
                add("1");
            }
            add("FROM");
            add("customers");
        } else {
            add("VALUES");
            int rows = 1 + random.nextInt(2);
            for (int r = 0; r < rows; r++) {
                if (r > 0) {
                    add(",");
                }
                add("(");
                add(chance(20) ? "?" : Integer.toString(1 + random.nextInt(40)));
                add(",");
                value("status");
                if (setsFence) {
                    add(",");
                    add("1");
                }
                add(")");
            }
        }
        if (flavor == Flavor.POSTGRESQL && chance(35)) {
            add("ON");
            add("CONFLICT");
            if (chance(50)) {
                add("DO");
                add("NOTHING");
            } else {
                add("(");
                add("id");
                add(")");
                add("DO");
                add("UPDATE");
                add("SET");
                add("status");
                add("=");
                add(chance(50) ? "EXCLUDED.status" : literal());
                if (chance(30)) {
                    add("WHERE");
                    add((alias == null ? currentTableRef : alias) + ".amount");
                    add(">");
                    add(Integer.toString(random.nextInt(300)));
                }
            }
        }
        if (flavor == Flavor.MARIADB && chance(8)) {
            add("ON");
            add("DUPLICATE");
            add("KEY");
            add("UPDATE");
            add("status");
            add("=");
            add(literal());
        }
        returning(true);
    }

    private void select() {
        add("SELECT");
        add(chance(50) ? "*" : "count(*)");
        add("FROM");
        String alias = table(true);
        if (chance(60)) {
            add("WHERE");
            predicate(alias);
        }
        if (chance(20)) {
            add("FOR");
            add("UPDATE");
        }
    }

    private void cteThenWrite() {
        add("WITH");
        add("src");
        add("AS");
        add("(");
        add("SELECT");
        add("id");
        add("FROM");
        add("customers");
        if (chance(50)) {
            add("WHERE");
            add("name");
            add("=");
            add(chance(50) ? "'bob'" : "?");
        }
        add(")");
        int pick = random.nextInt(3);
        if (pick == 0) {
            add("UPDATE");
            String alias = table(true);
            add("SET");
            column("status", alias, false);
            add("=");
            value("status");
            add("WHERE");
            add("cid");
            add("IN");
            add("(");
            add("SELECT");
            add("id");
            add("FROM");
            add("src");
            add(")");
        } else if (pick == 1) {
            add("DELETE");
            add("FROM");
            table(false);
            add("WHERE");
            add("cid");
            add("IN");
            add("(");
            add("SELECT");
            add("id");
            add("FROM");
            add("src");
            add(")");
        } else {
            add("INSERT");
            add("INTO");
            table(false);
            add("(");
            add("id");
            add(",");
            add("status");
            add(")");
            add("SELECT");
            add("id");
            add("+");
            add(Integer.toString(40 + random.nextInt(40)));
            add(",");
            add("'cte'");
            add("FROM");
            add("src");
        }
    }

    private void dataModifyingCte() {
        add("WITH");
        add("u");
        add("AS");
        add("(");
        int pick = random.nextInt(3);
        if (pick == 0) {
            add("UPDATE");
            String alias = table(true);
            add("SET");
            String target = chance(50) ? "status" : "amount";
            column(target, alias, false);
            add("=");
            value(target);
            if (chance(70)) {
                add("WHERE");
                predicate(alias);
            }
        } else if (pick == 1) {
            add("DELETE");
            add("FROM");
            String alias = table(true);
            add("WHERE");
            predicate(alias);
        } else {
            add("INSERT");
            add("INTO");
            table(false);
            add("(");
            add("id");
            add(",");
            add("status");
            add(")");
            add("VALUES");
            add("(");
            add(Integer.toString(1 + random.nextInt(40)));
            add(",");
            value("status");
            add(")");
        }
        add("RETURNING");
        add("id");
        add(")");
        if (chance(30)) {
            add("INSERT");
            add("INTO");
            add("customers");
            add("(");
            add("id");
            add(",");
            add("name");
            add(")");
            add("SELECT");
            add("id");
            add("+");
            add("1000");
            add(",");
            add("'u'");
            add("FROM");
            add("u");
            add("ON");
            add("CONFLICT");
            add("DO");
            add("NOTHING");
        } else {
            add("SELECT");
            add("count(*)");
            add("FROM");
            add("u");
        }
    }

    /** RETURNING: PostgreSQL after any write; MariaDB after DELETE and INSERT only. */
    private void returning(boolean mariaDbAccepts) {
        if ((flavor == Flavor.POSTGRESQL || flavor == Flavor.MARIADB && mariaDbAccepts) && chance(15)) {
            add("RETURNING");
            add(chance(50) ? "*" : "id");
        }
    }

    /** The reference to the table in scope, for qualifying columns when there is no alias. */
    private String currentTableRef = "orders";

    /**
     * Adds a table reference, maybe aliased; returns the alias, or null. Mostly the fenced table,
     * sometimes an unfenced look-alike.
     */
    private String table(boolean aliasAllowed) {
        int pick = random.nextInt(100);
        String base;
        boolean fenced = pick < 70;
        if (fenced) {
            base = "orders";
        } else {
            base = "orders_archive";
        }
        String name;
        int spelling = random.nextInt(8);
        if (flavor == Flavor.MARIADB && spelling < 2) {
            spelling = 7;   // MariaDB table names are case-sensitive on Linux: other casings name no table
        }
        switch (spelling) {
            case 0 -> name = base.toUpperCase(Locale.ROOT);
            case 1 -> name = Character.toUpperCase(base.charAt(0)) + base.substring(1);
            case 2 -> name = quote(base);
            case 3 -> name = schema + "." + base;
            case 4 -> name = quote(schema) + "." + quote(base);
            case 5 -> name = schema + " . " + base;
            default -> name = base;
        }
        add(name);
        currentTableRef = spelling == 2 || spelling == 4 ? quote(base) : base;
        if (aliasAllowed && chance(40)) {
            if (chance(40)) {
                add("AS");
            }
            String alias = chance(50) ? "o" : "x" + random.nextInt(3);
            add(alias);
            return alias;
        }
        return null;
    }

    private String quote(String identifier) {
        if (flavor == Flavor.MARIADB) {
            return "`" + identifier + "`";
        }
        return "\"" + (flavor == Flavor.H2 ? identifier.toUpperCase(Locale.ROOT) : identifier) + "\"";
    }

    private void column(String name, String alias, boolean qualify) {
        String column = caseOf(name);
        if (qualify && alias != null && flavor != Flavor.POSTGRESQL) {
            column = alias + "." + column;  // PostgreSQL does not accept a qualified SET target
        }
        add(column);
    }

    /** A value for {@code column}: mostly of its type, sometimes not (the database then refuses). */
    private void value(String column) {
        boolean text = column.equals("status") ? !chance(5) : chance(5);
        int pick = random.nextInt(6);
        if (pick == 0) {
            add("?");
        } else if (pick == 1) {
            add("NULL");
        } else if (text) {
            switch (random.nextInt(5)) {
                case 0 -> {
                    add("(");
                    add("SELECT");
                    add("max(name)");
                    add("FROM");
                    add("customers");
                    add(")");
                }
                case 1 -> add("'; UPDATE orders SET status = ''x'' --'");
                case 2 -> add("'/* ? */'");
                default -> add(literal());
            }
        } else if (chance(50)) {
            add("amount");
            add("+");
            add(Integer.toString(random.nextInt(9)));
        } else {
            add(Integer.toString(random.nextInt(500)));
        }
    }

    private String literal() {
        if (flavor == Flavor.MARIADB && chance(20)) {
            String[] mariaDb = {"\"dq\"", "'it\\'s'", "\"a;'b\"", "'#'", "'-- x'"};
            return mariaDb[random.nextInt(mariaDb.length)];
        }
        String[] literals = {"'paid'", "'it''s'", "'a;b'", "'--'", "'?'", "'x'"};
        return literals[random.nextInt(literals.length)];
    }

    private void predicate(String alias) {
        int terms = 1 + random.nextInt(3);
        for (int i = 0; i < terms; i++) {
            if (i > 0) {
                add(chance(60) ? "AND" : "OR");
            }
            if (chance(10)) {
                add("NOT");
            }
            int pick = random.nextInt(7);
            String prefix = alias != null && chance(50) ? alias + "." : "";
            switch (pick) {
                case 0 -> {
                    add(prefix + "id");
                    add("=");
                    add(chance(30) ? "?" : Integer.toString(1 + random.nextInt(8)));
                }
                case 1 -> {
                    add(prefix + "id");
                    add("IN");
                    add("(");
                    add(Integer.toString(1 + random.nextInt(4)));
                    add(",");
                    add(Integer.toString(1 + random.nextInt(4)));
                    add(")");
                }
                case 2 -> {
                    add(prefix + "status");
                    add("=");
                    add(chance(50) ? "'pending'" : literal());
                }
                case 3 -> {
                    add(prefix + "amount");
                    add(">");
                    add(Integer.toString(random.nextInt(300)));
                }
                case 4 -> {
                    add("EXISTS");
                    add("(");
                    add("SELECT");
                    add("1");
                    add("FROM");
                    add("customers");
                    add("c");
                    add("WHERE");
                    add("c.id");
                    add("=");
                    add((alias != null ? alias : currentTableRef) + ".cid");
                    add(")");
                }
                case 5 -> add("1 = 1");
                default -> {
                    add(prefix + "id");
                    add("IN");
                    add("(");
                    add("SELECT");
                    add("id");
                    add("FROM");
                    add("customers");
                    add(")");
                }
            }
        }
    }

    private void add(String token) {
        tokens.add(token);
    }

    private String caseOf(String word) {
        int pick = random.nextInt(4);
        return switch (pick) {
            case 0 -> word.toUpperCase(Locale.ROOT);
            case 1 -> Character.toUpperCase(word.charAt(0)) + word.substring(1);
            default -> word;
        };
    }

    private void mutate() {
        int pick = random.nextInt(4);
        int at = random.nextInt(tokens.size() + 1);
        switch (pick) {
            case 0 -> tokens.add(at, KEYWORDS_AND_PUNCTUATION[random.nextInt(KEYWORDS_AND_PUNCTUATION.length)]);
            case 1 -> {
                if (!tokens.isEmpty()) {
                    tokens.remove(Math.min(at, tokens.size() - 1));
                }
            }
            case 2 -> {
                if (!tokens.isEmpty()) {
                    int from = Math.min(at, tokens.size() - 1);
                    tokens.add(from, tokens.get(from));
                }
            }
            default -> {
                if (tokens.size() > 1) {
                    int a = random.nextInt(tokens.size());
                    int b = random.nextInt(tokens.size());
                    String t = tokens.get(a);
                    tokens.set(a, tokens.get(b));
                    tokens.set(b, t);
                }
            }
        }
    }

    /** Joins the tokens with random whitespace and comments, and random keyword casing. */
    private String render() {
        StringBuilder text = new StringBuilder();
        if (chance(10)) {
            text.append(separator());
        }
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            if (i > 0) {
                text.append(separator());
            }
            text.append(isKeyword(token) ? caseOf(token.toLowerCase(Locale.ROOT)) : token);
        }
        if (chance(10)) {
            text.append(chance(50) ? " -- trailing comment" : " /* trailing */");
        }
        return text.toString();
    }

    private String separator() {
        int pick = random.nextInt(100);
        if (pick < 70) {
            return " ";
        }
        if (pick < 75) {
            return "  ";
        }
        if (pick < 80) {
            return "\t";
        }
        if (pick < 84) {
            return "\r\n";
        }
        if (pick < 87) {
            return "\n";
        }
        if (pick < 89) {
            return flavor == Flavor.POSTGRESQL ? "\r" : "\n";
        }
        if (pick < 95) {
            return " /* " + (chance(30) ? "a ' quote ? and ; " : "c") + " */ ";
        }
        if (flavor == Flavor.MARIADB && chance(10)) {     // the driver refuses statements with # comments
            return " # " + (chance(30) ? "hash ' ? ;" : "c") + "\n";
        }
        return " -- " + (chance(30) ? "line ' ? ;" : "c") + "\n";
    }

    private static boolean isKeyword(String token) {
        return token.chars().allMatch(c -> c >= 'A' && c <= 'Z') && token.length() > 1;
    }

    private boolean chance(int percent) {
        return random.nextInt(100) < percent;
    }
}
