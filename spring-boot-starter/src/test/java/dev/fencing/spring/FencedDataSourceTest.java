package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.MissingFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.lock.JdbcFencedLocks;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The application's data source is fenced, and a write outside any fence is refused and translated. */
class FencedDataSourceTest extends StarterContextTest {

    @Autowired
    DataSource dataSource;

    @Test
    void theDataSourceBeanIsWrapped() {
        assertThat(dataSource).isInstanceOf(FencingDataSource.class);
        assertThat(((FencingDataSource) dataSource).config().tables()).hasToString("[orders]");
    }

    @Test
    void theLockStoreIsTheJdbcOneOnThePrimaryDataSource() {
        assertThat(locks).isInstanceOf(JdbcFencedLocks.class);
        assertThat(database.queryForObject("SELECT count(*) FROM fencing_locks WHERE 1 = 0", Integer.class)).isZero();
    }

    @Test
    void aWriteOutsideAnyFenceIsRefusedAndNothingIsWritten() {
        insertPendingOrder(7);
        assertThat(Fence.current()).isEmpty();

        assertThatThrownBy(() -> jdbc.update("UPDATE orders SET status = 'paid' WHERE id = 7"))
                .isInstanceOf(MissingFenceDataAccessException.class)
                .hasCauseInstanceOf(MissingFenceException.class)
                .satisfies(e -> assertThat(((MissingFenceDataAccessException) e).getTable()).isEqualTo("orders"));

        assertThat(database.queryForObject("SELECT status FROM orders WHERE id = 7", String.class)).isEqualTo("pending");
    }

    @Test
    void statementsOnOtherTablesNeedNoFence() {
        assertThat(jdbc.queryForObject("SELECT count(*) FROM flyway_schema_history", Integer.class)).isPositive();
    }
}
