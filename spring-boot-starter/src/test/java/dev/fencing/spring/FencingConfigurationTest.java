package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import dev.fencing.testing.TestDatabase;
import dev.fencing.testing.TestRedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

/**
 * How the starter reads {@code fencing.*} and picks its lock store, on contexts far lighter than
 * a Spring Boot application: the auto-configuration and one data source on a PostgreSQL schema.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@SuppressWarnings("try") // leases and fence scopes are held, not used, inside their blocks
class FencingConfigurationTest {

    private final ApplicationContextRunner runner;

    FencingConfigurationTest(DataSource scratch) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencingAutoConfiguration.class,
                        FencingMigrationConfiguration.class, FencingObservabilityConfiguration.class))
                .withBean("dataSource", DataSource.class, () -> scratch);
    }

    @Test
    void keysBindRelaxedFromFilesListsAndEnvironmentVariables() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of("FENCING_COMPARISON", "strictly-newer", "FENCING_PG_URL", "jdbc:other-tool"))))
                .withPropertyValues("fencing.tables[0]=orders", "fencing.tables[1]=billing.payments",
                        "fencing.onZeroRows=raise", "fencing.table[billing.payments].mode=epoch",
                        "fencing.plan-cache-size=64")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FencingConfig config = ((FencingDataSource) context.getBean(DataSource.class)).config();
                    assertThat(config.tables()).map(Object::toString).containsExactlyInAnyOrder("orders", "billing.payments");
                    assertThat(config.comparison()).isEqualTo(FencingConfig.Comparison.STRICTLY_NEWER);
                    assertThat(config.onZeroRows()).isEqualTo(FencingConfig.ZeroRows.RAISE);
                    assertThat(config.tables()).allSatisfy(table -> assertThat(config.modeOf(table))
                            .isEqualTo(table.toString().equals("orders") ? FencingConfig.Mode.ROW : FencingConfig.Mode.EPOCH));
                    assertThat(config.planCacheSize()).isEqualTo(64);
                });
    }

    @Test
    void theFileOfFencingConfigIsReadFirstAndTheApplicationsKeysWin(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("fencing.properties");
        Files.writeString(file, "fencing.tables=orders\nfencing.column=fence_a\n");
        runner.withPropertyValues("fencing.config=" + file, "fencing.column=fence_b").run(context -> {
            FencingConfig config = ((FencingDataSource) context.getBean(DataSource.class)).config();
            assertThat(config.tables()).hasToString("[orders]");
            assertThat(config.column()).isEqualTo("fence_b");
        });
    }

    @Test
    void aMisspeltKeyStopsTheApplication() {
        runner.withPropertyValues("fencing.tabels=orders").run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("unknown fencing configuration key fencing.tabels")
                .hasMessageContaining("known keys: ").hasMessageContaining("fencing.tables"));
    }

    @Test
    void aValueOutsideTheAllowedOnesStopsTheApplicationNamingTheKey() {
        runner.withPropertyValues("fencing.tables=orders", "fencing.comparison=sometimes").run(context ->
                assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("fencing.comparison").hasMessageContaining("newer-or-equal, strictly-newer"));
    }

    @Test
    void noFencedTableStopsTheApplication() {
        runner.run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("fencing.tables is empty").hasStackTraceContaining("fencing.enabled=false"));
    }

    @Test
    void disabledLeavesTheDataSourceAloneAndKeepsTheLocks() {
        runner.withPropertyValues("fencing.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(DataSource.class)).isNotInstanceOf(FencingDataSource.class);
            assertThat(context).hasSingleBean(FencedLocks.class).doesNotHaveBean(FencedDataSources.class);
            assertThat(context.getBean(FencedLocks.class)).isInstanceOf(JdbcFencedLocks.class);
        });
    }

    @Test
    void liquibaseMigratesFencedTablesThroughTheUnwrappedDataSource(DataSource scratch) {
        runner.withConfiguration(AutoConfigurations.of(BootLineAutoConfigurations.LIQUIBASE))
                .withPropertyValues("fencing.tables=ledger", "spring.liquibase.change-log=classpath:db/changelog/ledger.sql")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DataSource.class)).isInstanceOf(FencingDataSource.class);
                    assertThat(new JdbcTemplate(scratch).queryForObject("SELECT count(*) FROM ledger", Integer.class)).isZero();
                });
    }

    @Test
    void aFenceColumnThatDoesNotExistIsNamedAtTheFirstWriteAndTheRowIsUntouched(DataSource scratch) {
        JdbcTemplate raw = new JdbcTemplate(scratch);
        raw.execute("CREATE TABLE shipments (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)");
        raw.update("INSERT INTO shipments (id, status) VALUES (1, 'pending')");
        runner.withConfiguration(AutoConfigurations.of(BootLineAutoConfigurations.JDBC_TEMPLATE))
                .withPropertyValues("fencing.tables=shipments", "fencing.column=fence_no").run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    try (Lease lease = context.getBean(FencedLocks.class).acquire("shipment:1", Duration.ofSeconds(10),
                            Duration.ofSeconds(5)); Fence.Scope scope = lease.enterFence()) {
                        assertThatThrownBy(() -> jdbc.update("UPDATE shipments SET status = 'sent' WHERE id = 1"))
                                .isExactlyInstanceOf(FencingDataAccessException.class)
                                .hasMessageContaining("fenced table shipments has no fence column fence_no (fencing.column)");
                    }
                    assertThat(context.getBean(FencedDataSources.class).fenceColumnsChecked()).isEmpty();
                });
        assertThat(raw.queryForObject("SELECT status FROM shipments WHERE id = 1", String.class)).isEqualTo("pending");
    }

    @Test
    void jdbcTransactionManagersTranslateCommitTimeErrors(DataSource scratch) {
        runner.withPropertyValues("fencing.tables=orders")
                .withBean(JdbcTransactionManager.class, () -> new JdbcTransactionManager(scratch))
                .run(context -> assertThat(context.getBean(JdbcTransactionManager.class).getExceptionTranslator())
                        .isInstanceOf(FencingExceptionTranslator.class));
    }

    @Test
    void aTransactionManagerThatTakesNoListenersStopsTheApplication() {
        runner.withPropertyValues("fencing.tables=orders")
                .withBean("opaqueTransactions", PlatformTransactionManager.class, () -> new PlatformTransactionManager() {
                    @Override
                    public TransactionStatus getTransaction(TransactionDefinition definition) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public void commit(TransactionStatus status) {
                    }

                    @Override
                    public void rollback(TransactionStatus status) {
                    }
                })
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("opaqueTransactions").hasMessageContaining("ConfigurableTransactionManager"));
    }

    @Test
    void redisLocksComeFromSpringsRedisSettings(@TestRedis String redisUri) {
        runner.withPropertyValues("fencing.tables=orders", "fencing.lock.store=redis", "spring.data.redis.url=" + redisUri,
                "spring.data.redis.timeout=2s").run(context -> {
                    FencedLocks locks = context.getBean(FencedLocks.class);
                    assertThat(locks).isInstanceOf(RedisFencedLocks.class);
                    assertThat(locks.toString()).contains(redisUri.replace("redis://", ""));
                    try (Lease lease = locks.acquire("order:1", Duration.ofSeconds(5), Duration.ZERO)) {
                        assertThat(lease.fence()).isPositive();
                        Optional<Lease> second = locks.tryAcquire("order:1", Duration.ofSeconds(5));
                        assertThat(second).isEmpty();
                    }
                });
    }
}
