package dev.fencing.agent;

import example.app.MatrixSample;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every way an application opens a connection, under {@code -javaagent:fencing-agent.jar} in a JVM
 * of its own ({@link MatrixSample}), for every JDK of {@link ChildJvm#javas()}: pools (HikariCP,
 * DBCP 2, c3p0, Tomcat JDBC, Agroal, MariaDB's own; under {@code -Plong} Vibur and Oracle UCP), {@code DriverManager}, each driver's own
 * {@code DataSource}, XA and pooled connections, the application's own fencing over other tables,
 * a wrapper that claims to wrap a fenced connection, a virtual thread; on PostgreSQL, MariaDB and
 * H2. Each case writes under the current fence (9), a stale one (5) and none, over a row holding
 * 7, and the row is read back here: {@code current/9} when fenced, {@code seed/7} when refused.
 *
 * <p>The default build runs a slice that touches every entry point the agent weaves at least once
 * on each database; {@code -Plong} ({@code fencing.long=true}) runs every source on every database.
 */
class MatrixIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String FENCED = "current=1 stale=StaleFenceException none=MissingFenceException";

    /** Sources every database has; plus the ones of {@link #ONLY}. */
    private static final List<String> COMMON = List.of("drivermanager", "datasource", "xa", "pooled", "hikari",
            "dbcp2", "c3p0", "tomcat", "agroal", "own-fencingds", "own-url", "own-hikari-url", "tomcat-pooled",
            // the pools' own public handouts beside DataSource.getConnection() (HandoutIT runs each in a JVM of its own)
            "hikari-pool", "tomcat-async", "tomcat-pool", "tomcat-getpool", "tomcat-pool-async", "dbcp2-borrow",
            "dbcp2-pooling", "c3p0-pooled");
    /** Vibur's, Oracle UCP's and Agroal's handouts (example.app.HandoutSources; HandoutIT runs each in a JVM of its own). */
    private static final List<String> MORE_POOLS = List.of("vibur", "vibur-nonpooled", "vibur-raw", "vibur-taken", "ucp",
            "ucp-user", "ucp-builder", "agroal-poolless", "agroal-xa");
    private static final Map<String, List<String>> ONLY = Map.of(
            "pg", concat(List.of("liar", "virtual"), MORE_POOLS),
            "mariadb", concat(List.of("mariadb-pool", "mariadb-pools", "mariadb-static"), MORE_POOLS),
            "h2", List.of("builder"));

    /** The default build's slice: each woven entry point at least once per database, each pool once. */
    private static final List<String> SLICE = List.of(
            "xa:pg", "pooled:pg", "tomcat:pg", "own-fencingds:pg", "own-hikari-url:pg", "liar:pg", "virtual:pg",
            "tomcat-pooled:pg",
            "datasource:mariadb", "xa:mariadb", "pooled:mariadb", "mariadb-pool:mariadb", "mariadb-pools:mariadb",
            "mariadb-static:mariadb", "dbcp2:mariadb", "own-url:mariadb",
            "xa:h2", "pooled:h2", "c3p0:h2", "agroal:h2", "drivermanager:h2", "builder:h2",
            "hikari-pool:h2", "tomcat-pool-async:h2", "dbcp2-borrow:h2", "dbcp2-pooling:pg", "c3p0-pooled:mariadb");

    /** What each case must end in, when it is not fenced. */
    private static final Map<String, String> REFUSED = Map.of(
            "mariadb-static", "refused=FencingException/ZF000",
            "tomcat-pooled", "refused=FencingException/ZF000",
            "dbcp2-borrow", "refused=FencingException/ZF000");

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void aSliceOfTheMatrix(Path java, @TempDir Path dir) throws Exception {
        run(java, dir, SLICE, List.of(), Set.of());
    }

    /**
     * URL filters decide alike for the URL a pool or data source was configured with and the one
     * its driver reports: HikariCP with exactly the included URL, MariaDB's data source with the
     * default port written out (MariaDB reports its URLs without it) are fenced; an exclude that
     * starts with {@code *} leaves its connections alone, and so does an include that names no
     * URL of H2's.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void urlFiltersMatchTheConfiguredAndTheReportedUrlAlike(Path java, @TempDir Path dir) throws Exception {
        String mariadbWithPort = Databases.MARIADB_URL.contains(":3306/") ? Databases.MARIADB_URL
                : Databases.MARIADB_URL.replaceFirst("^(jdbc:mariadb://[^/:]+)/", "$1:3306/");
        run(java, dir, List.of("hikari:pg", "datasource:mariadb", "excluded:pg", "excluded:mariadb", "drivermanager:h2",
                        "pooled:mariadb"),
                List.of("fencing.agent.include-urls=" + Postgres.URL + "," + mariadbWithPort + "*",
                        "fencing.agent.exclude-urls=*fencing-excluded*"),
                Set.of("excluded:pg", "excluded:mariadb", "drivermanager:h2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    @EnabledIfSystemProperty(named = "fencing.long", matches = "true")
    void theWholeMatrix(Path java, @TempDir Path dir) throws Exception {
        List<String> cases = new ArrayList<>();
        for (String database : List.of("pg", "mariadb", "h2")) {
            COMMON.forEach(source -> cases.add(source + ":" + database));
            ONLY.get(database).forEach(source -> cases.add(source + ":" + database));
        }
        run(java, dir, cases, List.of(), Set.of());
    }

    private static void run(Path java, Path dir, List<String> cases, List<String> configLines, Set<String> unfenced)
            throws Exception {
        try (Databases db = new Databases(dir)) {
            Map<String, Long> ids = new LinkedHashMap<>();
            List<String> arguments = new ArrayList<>();
            for (String name : cases) {
                long id = ids.size() + 1;
                ids.put(name, id);
                db.seed(name.split(":")[1], id);
                arguments.add(name + ":" + id);
            }
            Path config = Files.writeString(dir.resolve("fencing.properties"),
                    "fencing.tables=" + db.table + "\n" + String.join("\n", configLines) + "\n");
            List<String> options = new ArrayList<>(List.of(db.properties()));
            options.add(ChildJvm.javaagent(config));
            String output;
            try (ChildJvm jvm = ChildJvm.start(java, options, ChildJvm.classPath(true), MatrixSample.class,
                    arguments.toArray(String[]::new))) {
                output = jvm.awaitSuccess(TIMEOUT);
            }
            boolean virtualThreads = Integer.parseInt(resultLine(output, "java")) >= 21;
            for (Map.Entry<String, Long> entry : ids.entrySet()) {
                String name = entry.getKey();
                String source = name.split(":")[0];
                String database = name.split(":")[1];
                String line = resultLine(output, name);
                String row = db.row(database, entry.getValue());
                if (unfenced.contains(name)) {
                    assertThat(line).as(name).endsWith(" current=1 stale=1 none=1");
                    assertThat(row).as(name).isEqualTo("none/7");
                } else if (REFUSED.containsKey(source)) {
                    assertThat(line).as(name).isEqualTo(REFUSED.get(source));
                    assertThat(row).as(name).isEqualTo("seed/7");
                } else if (source.equals("virtual") && line.equals("skipped")) {
                    assertThat(virtualThreads).as("virtual threads skipped on a JVM that has them").isFalse();
                } else {
                    // the fenced layer is outermost: no pool keeps fenced connections (they would keep the
                    // configuration they were fenced with)
                    assertThat(line).as(name + "\n" + output)
                            .startsWith("connection=dev.fencing.internal.jdbc.FencedConnection " + FENCED);
                    assertThat(row).as(name).isEqualTo("current/9");
                    if (source.equals("virtual")) {
                        assertThat(line).as(name).endsWith(" virtual=true");
                    }
                }
            }
        }
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return List.copyOf(all);
    }

    /** What follows {@code RESULT <name> } in the output. */
    static String resultLine(String output, String name) {
        return line(output, "RESULT " + name + " ");
    }

    /** The message of the exception that refused case {@code name}. */
    static String messageLine(String output, String name) {
        return line(output, "MESSAGE " + name + " ");
    }

    private static String line(String output, String prefix) {
        for (String line : output.split("\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
        }
        throw new AssertionError("no line '" + prefix + "'; output:\n" + output);
    }
}
