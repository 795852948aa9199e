package dev.fencing.bench.pg;

import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The guard's trigger's own cost per row, in the server, apart from everything else: one
 * {@code UPDATE} of every row of a table with the guard's triggers, under {@code EXPLAIN (ANALYZE)}
 * (which times each trigger: {@code Trigger ..: time=.. calls=..}), and the same {@code UPDATE} of a table of the same rows without the guard,
 * alternated, each in a transaction rolled back (so every repeat updates the same rows). Reported:
 * the trigger's time per row, and the whole statement's execution time per row with and without it.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.pg.GuardAB trigger [rows] [repeats]</pre>
 */
final class TriggerCost {

    private static final Pattern TRIGGER = Pattern.compile("Trigger (\\S+): time=([0-9.]+) calls=([0-9]+)");
    private static final Pattern EXECUTION = Pattern.compile("Execution Time: ([0-9.]+) ms");

    private TriggerCost() {
    }

    static void main(String[] args) throws SQLException {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        String database = "fencing_guard_trigger_" + ProcessHandle.current().pid();
        String load = GuardAB.loadAverage();
        GuardAB.createScratchDatabase(database);
        try {
            String url = GuardAB.scratchUrl(database);
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                for (String table : new String[] {"t_on", "t_off"}) {
                    s.execute("CREATE TABLE public." + table
                            + " (id BIGINT PRIMARY KEY, status TEXT NOT NULL, last_fence BIGINT NOT NULL)");
                    s.execute("INSERT INTO public." + table + " SELECT g, 'new', 0 FROM generate_series(1, " + rows
                            + ") g");
                    s.execute("VACUUM ANALYZE public." + table);
                }
            }
            PGSimpleDataSource installer = new PGSimpleDataSource();
            installer.setURL(url);
            DatabaseGuard.install(installer, FencingConfig.builder().tables("public.t_on")
                    .databaseGuard(FencingConfig.Guard.REQUIRED).build());
            double[] trigger = new double[repeats];
            double[] withGuard = new double[repeats];
            double[] without = new double[repeats];
            try (Connection c = DriverManager.getConnection(url)) {
                c.setAutoCommit(false);
                for (int i = -1; i < repeats; i++) { // the first round warms the caches and is not counted
                    double[] on = explain(c, "t_on", rows);
                    double off = explain(c, "t_off", rows)[1];
                    if (i >= 0) {
                        trigger[i] = on[0];
                        withGuard[i] = on[1];
                        without[i] = off;
                    }
                }
            }
            double perRow = 1000.0 / rows;
            System.out.printf(Locale.ROOT, "the guard's trigger on PostgreSQL, UPDATE of %,d rows, %d repeats, load %s -> %s%n",
                    rows, repeats, load, GuardAB.loadAverage());
            System.out.printf(Locale.ROOT, "trigger time per row (us): median %.2f, min %.2f, max %.2f%n",
                    median(trigger) * perRow, min(trigger) * perRow, max(trigger) * perRow);
            System.out.printf(Locale.ROOT, "statement execution per row (us): with the guard median %.2f [%.2f, %.2f],"
                    + " without %.2f [%.2f, %.2f]; difference of medians %.2f%n",
                    median(withGuard) * perRow, min(withGuard) * perRow, max(withGuard) * perRow,
                    median(without) * perRow, min(without) * perRow, max(without) * perRow,
                    (median(withGuard) - median(without)) * perRow);
        } finally {
            GuardAB.dropScratchDatabase(database);
        }
    }

    /** {trigger ms, execution ms} of one UPDATE of every row of {@code table}, rolled back. */
    private static double[] explain(Connection c, String table, int rows) throws SQLException {
        double triggerMillis = 0;
        double executionMillis = -1;
        boolean perRow = false;
        try (Statement s = c.createStatement()) {
            s.execute("SELECT set_config('fencing.fence', '1000', true)");
            try (ResultSet plan = s.executeQuery("EXPLAIN (ANALYZE) UPDATE public." + table
                    + " SET status = 'paid', last_fence = 1000 WHERE id <= " + rows)) {
                while (plan.next()) {
                    String line = plan.getString(1);
                    Matcher trigger = TRIGGER.matcher(line);
                    if (trigger.find()) {
                        perRow |= Long.parseLong(trigger.group(3)) == rows;
                        triggerMillis += Double.parseDouble(trigger.group(2));
                    }
                    Matcher execution = EXECUTION.matcher(line);
                    if (execution.find()) {
                        executionMillis = Double.parseDouble(execution.group(1));
                    }
                }
            }
        } finally {
            c.rollback();
        }
        if (table.equals("t_on") && !perRow) {
            throw new IllegalStateException("no trigger ran once per row in the plan of " + table);
        }
        return new double[] {triggerMillis, executionMillis};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }
}
