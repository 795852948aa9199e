package dev.fencing.agent;

import example.app.MatrixSample;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The handouts of a pool's own public API beside {@code DataSource.getConnection()} (issue 33),
 * each in a JVM of its own ({@link MatrixSample}), on PostgreSQL and MariaDB, for every JDK of
 * {@link ChildJvm#javas()}: three writes per case (the current fence 9, a stale 5, none) over a
 * row holding 7, read back raw here. Where the API returns an interface the connection is fenced
 * ({@code current/9}); where it returns a concrete class no wrapper can stand in for, the borrow is
 * refused with a message naming the supported entry point and nothing is written ({@code seed/7}).
 * Before the agent fenced at every handout, all of them wrote all three ({@code none/7}); the pool
 * callbacks ({@link #CALLBACKS}) did until the agent fenced a pool's calls into application code.
 */
class HandoutIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String FENCED = "connection=dev.fencing.internal.jdbc.FencedConnection "
            + "current=1 stale=StaleFenceException none=MissingFenceException";

    /** The handouts of issue 33's four findings: each failed (wrote all three) before the agent fenced at every handout. */
    static final List<String> FOUND = List.of("hikari-pool", "tomcat-async", "tomcat-pool", "tomcat-getpool",
            "tomcat-pool-async", "dbcp2-borrow");

    /**
     * Vibur, Oracle UCP and Agroal, each public handout as the pool's docs show it
     * ({@link example.app.HandoutSources}); each returns an interface, so each is fenced. The
     * default build runs one per pool (Vibur's pool holder's {@code rawConnection()}, UCP's
     * connection builder, Agroal's pool-less data source); {@code -Plong} runs them all.
     */
    static final List<String> POOLS = List.of("vibur-raw", "ucp-builder", "agroal-poolless");
    static final List<String> POOLS_LONG = List.of("vibur", "vibur-nonpooled", "vibur-taken", "ucp", "ucp-user",
            "agroal-xa");

    /**
     * The callbacks through which a pool passes its connection to the application's code, each
     * making its write inside the pool's borrow ({@link example.app.HandoutSources}): the agent
     * fences the connection at the pool's call site, so each is fenced. By default Agroal's
     * interceptor and Vibur's hook, which wrote all three ({@code none/7}) before the agent fenced
     * a pool's calls into application code; {@code -Plong} adds Agroal's listener (also written
     * before) and c3p0's customizer (fenced before too: c3p0's physical connections are fenced
     * where its helper threads open them, so it guards against that changing).
     */
    static final List<String> CALLBACKS = List.of("agroal-interceptor", "vibur-hook");
    static final List<String> CALLBACKS_LONG = List.of("agroal-listener", "c3p0-customizer");

    static Stream<Arguments> handouts() {
        List<String> handouts = new ArrayList<>(FOUND);
        handouts.addAll(POOLS);
        handouts.addAll(CALLBACKS);
        if (Boolean.getBoolean("fencing.long")) {
            handouts.addAll(POOLS_LONG);
            handouts.addAll(CALLBACKS_LONG);
        }
        List<Arguments> all = new ArrayList<>();
        ChildJvm.javas().forEach(java -> {
            for (String handout : handouts) {
                all.add(Arguments.of(handout, java));
            }
        });
        return all.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("handouts")
    void everyHandoutIsFencedOrRefused(String handout, Path java, @TempDir Path dir) throws Exception {
        try (Databases db = new Databases(dir)) {
            db.seed("pg", 1);
            db.seed("mariadb", 2);
            Path config = Files.writeString(dir.resolve("fencing.properties"), "fencing.tables=" + db.table + "\n");
            List<String> options = new ArrayList<>(List.of(db.properties()));
            options.add(ChildJvm.javaagent(config));
            String output;
            try (ChildJvm jvm = ChildJvm.start(java, options, ChildJvm.classPath(true), MatrixSample.class,
                    handout + ":pg:1", handout + ":mariadb:2")) {
                output = jvm.awaitSuccess(TIMEOUT);
            }
            long id = 1;
            for (String database : List.of("pg", "mariadb")) {
                String name = handout + ":" + database;
                String line = MatrixIT.resultLine(output, name);
                String row = db.row(database, id++);
                if (handout.equals("dbcp2-borrow")) {
                    assertThat(line).as(name + "\n" + output).isEqualTo("refused=FencingException/ZF000");
                    assertThat(MatrixIT.messageLine(output, name)).as(name)
                            .contains("GenericObjectPool").contains("PoolableConnection").contains("PoolingDataSource");
                    assertThat(row).as(name).isEqualTo("seed/7");
                } else {
                    assertThat(line).as(name + "\n" + output).isEqualTo(FENCED);
                    assertThat(row).as(name).isEqualTo("current/9");
                }
            }
        }
    }
}
