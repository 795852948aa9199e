package dev.fencing.agent;

import example.app.EntitySample;
import example.app.FailClosedSample;
import example.app.WritesSample;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

/**
 * Unmodified applications under {@code -javaagent:fencing-agent.jar=config=...}, each in a JVM of
 * its own, for every JDK of {@link ChildJvm#javas()}. The rows are checked in PostgreSQL: the
 * write under the current fence applied (status and fence), the stale one and the one without a
 * fence did not.
 */
class PremainIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String FENCED_ONCE = "connection=dev.fencing.internal.jdbc.FencedConnection current=1 "
            + "stale=StaleFenceException none=MissingFenceException";

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void poolsAndDataSourcesOfAnApplicationThatCarriesItsOwnFencingDriver(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 7).seed(2, 7).seed(3, 7)) {
            String output = run(java, db.config(dir), db.table, true,
                    "hikari:1", "pgsimple:2", "fencingds:3", "h2:1");

            // the application's fencing-driver jar holds a Fence too, but the bootstrap copy is the one in effect
            assertThat(output).contains("FENCE loader=bootstrap copies=app-driver,agent-jar");
            // one fenced layer: a second one would refuse the current write (it sets the fence column itself)
            assertThat(output).contains("RESULT mode=hikari " + FENCED_ONCE)
                    .contains("RESULT mode=pgsimple " + FENCED_ONCE)
                    .contains("RESULT mode=fencingds " + FENCED_ONCE)
                    .contains("RESULT mode=h2 " + FENCED_ONCE + " row=current/9");
            for (long id = 1; id <= 3; id++) {
                assertThat(db.row(id)).as("row %d", id).isEqualTo("current/" + 9);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void driverManagerAndALazyPoolWithOnlyTheAgentOnBoard(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 7).seed(2, 7)) {
            String output = run(java, db.config(dir), db.table, false, "drivermanager:1", "hikari-lazy:2");

            assertThat(output).contains("FENCE loader=bootstrap copies=agent-jar");
            assertThat(output).contains("RESULT mode=drivermanager " + FENCED_ONCE)
                    .contains("RESULT mode=hikari-lazy " + FENCED_ONCE);
            assertThat(db.row(1)).isEqualTo("current/9");
            assertThat(db.row(2)).isEqualTo("current/9");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void excludedUrlsAreLeftAlone(Path java, @TempDir Path dir) throws Exception {
        try (Postgres db = new Postgres().seed(1, 7)) {
            String output = run(java, db.config(dir, "fencing.agent.exclude-urls=jdbc:h2:*"), db.table, true,
                    "h2:1", "drivermanager:1");

            assertThat(output).contains("RESULT mode=h2 connection=org.h2.jdbc.JdbcConnection current=1 stale=1 none=1");
            assertThat(output).contains("RESULT mode=drivermanager " + FENCED_ONCE);
            assertThat(db.row(1)).isEqualTo("current/9");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void fencedEntitiesAddTheirTablesAsTheyLoad(Path java, @TempDir Path dir) throws Exception {
        // no table configured: the tables come from @Fenced classes, as the configuration says
        Path config = Files.writeString(dir.resolve("fencing.properties"), "fencing.agent.tables-from=entities\n");
        String output;
        try (ChildJvm jvm = ChildJvm.start(java, List.of(ChildJvm.javaagent(config)), ChildJvm.classPath(true),
                EntitySample.class)) {
            output = jvm.awaitSuccess(TIMEOUT);
        }
        assertThat(output).contains("RESULT ordersBefore=1 ordersAfter=MissingFenceException "
                + "paymentsBefore=1 paymentsAfter=MissingFenceException paymentsFenced=1");
        assertThat(output).contains("fencing table entity_orders (@Fenced on " + EntitySample.Order.class.getName());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void whatCannotBeFencedIsRefused(Path java, @TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("fencing.properties"), "fencing.tables=fail_closed_orders\n");
        String output;
        try (ChildJvm jvm = ChildJvm.start(java, List.of(ChildJvm.javaagent(config)), ChildJvm.classPath(true),
                FailClosedSample.class)) {
            output = jvm.awaitSuccess(TIMEOUT);
        }
        assertThat(output).contains("RESULT viaInterface=FencedConnection viaOwnType=FencingException/ZF000 "
                + "afterBadEntity=FencingException/ZF000");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void anInvalidConfigurationStopsTheJvmFromStartingWithOneLine(Path java, @TempDir Path dir) throws Exception {
        Path misspelt = Files.writeString(dir.resolve("fencing.properties"),
                "fencing.tables=orders\nfencing.agent.include-url=jdbc:postgresql:*\n");
        assertRefusedAtStart(java, ChildJvm.javaagent(misspelt), "unknown fencing agent configuration key "
                + "'fencing.agent.include-url'; known keys: fencing.tables,");
        assertRefusedAtStart(java, ChildJvm.javaagent(dir.resolve("missing.properties")), "cannot read");
        assertRefusedAtStart(java, ChildJvm.javaagent(null) + "=tables=orders", "invalid fencing agent argument");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.fencing.agent.ChildJvm#javas")
    void aBareJavaagentFencesNothingSoTheJvmDoesNotStart(Path java) throws Exception {
        assertRefusedAtStart(java, ChildJvm.javaagent(null), "no fenced table configured, so the agent would fence "
                + "nothing; set fencing.tables in the configuration");
    }

    /** The JVM exits with status 1 before main, printing exactly one line: the refusal. */
    private static void assertRefusedAtStart(Path java, String javaagent, String message) throws Exception {
        try (ChildJvm jvm = ChildJvm.start(java, List.of(javaagent), ChildJvm.classPath(true), WritesSample.class,
                Postgres.URL, "orders")) {
            assertThat(jvm.awaitExit(TIMEOUT)).as(jvm.output()).isEqualTo(1);
            assertThat(jvm.output().lines()).as(jvm.output()).singleElement(as(STRING))
                    .startsWith("fencing agent: not started: " + message);
        }
    }

    private static String run(Path java, Path config, String table, boolean withDriver, String... modes)
            throws Exception {
        String[] arguments = new String[modes.length + 2];
        arguments[0] = Postgres.URL;
        arguments[1] = table;
        System.arraycopy(modes, 0, arguments, 2, modes.length);
        try (ChildJvm jvm = ChildJvm.start(java, List.of(ChildJvm.javaagent(config)), ChildJvm.classPath(withDriver),
                WritesSample.class, arguments)) {
            return jvm.awaitSuccess(TIMEOUT);
        }
    }
}
