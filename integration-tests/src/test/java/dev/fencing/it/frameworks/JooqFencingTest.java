package dev.fencing.it.frameworks;

import static dev.fencing.it.frameworks.FrameworkFixture.fence;
import static dev.fencing.it.frameworks.FrameworkFixture.requireCause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.table;

import dev.fencing.Fence;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.testing.TestDatabase;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.ParamType;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** jOOQ's DSL (bound and inlined values, RETURNING, ON CONFLICT, batches) over a FencingDataSource. */
abstract class JooqFencingTest {

    private static final Table<Record> ORDERS = table("orders");
    private static final Table<Record> PAYMENTS = table("payments");
    private static final Field<Long> ID = field("id", Long.class);
    private static final Field<String> STATUS = field("status", String.class);
    private static final Field<Long> AMOUNT = field("amount", Long.class);
    private static final Field<Long> ORDER_ID = field("order_id", Long.class);

    private final FrameworkFixture db;
    private final DSLContext dsl;

    JooqFencingTest(DataSource raw, SQLDialect dialect) throws SQLException {
        this.db = new FrameworkFixture(raw);
        this.dsl = DSL.using(db.fenced, dialect);
    }

    @BeforeEach
    void reset() throws SQLException {
        db.reset();
    }

    @Test
    void updatesAreFencedWithBoundAndWithInlinedValues() throws SQLException {
        DSLContext inlined = DSL.using(db.fenced, dsl.dialect(), new Settings().withStatementType(
                org.jooq.conf.StatementType.STATIC_STATEMENT));
        try (Fence.Scope s = fence(12)) {
            assertThat(dsl.update(ORDERS).set(STATUS, "paid").where(ID.eq(1L)).execute()).isEqualTo(1);
            assertThat(inlined.update(ORDERS).set(AMOUNT, 150L).where(ID.eq(1L)).execute()).isEqualTo(1);
        }
        assertThat(db.statusOf(1)).isEqualTo("paid");
        assertThat(db.longOf("SELECT amount FROM orders WHERE id = 1")).isEqualTo(150);
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
        try (Fence.Scope s = fence(5)) {
            assertThatThrownBy(() -> inlined.update(ORDERS).set(STATUS, "void").where(ID.eq(1L)).execute())
                    .isInstanceOf(DataAccessException.class)
                    .satisfies(e -> assertThat(requireCause(e, StaleFenceException.class).attemptedFence()).isEqualTo(5));
        }
        assertThatThrownBy(() -> dsl.deleteFrom(ORDERS).where(ID.eq(1L)).execute())
                .satisfies(e -> requireCause(e, MissingFenceException.class));
        assertThat(db.statusOf(1)).isEqualTo("paid");
    }

    @Test
    void insertReturningGivesTheIdAndRecordsTheFence() throws SQLException {
        long id;
        try (Fence.Scope s = fence(12)) {
            id = dsl.insertInto(PAYMENTS).columns(ORDER_ID, AMOUNT).values(1L, 100L).returning(ID).fetchOne(ID);
        }
        assertThat(db.fenceOf("payments", id)).isEqualTo(12);
    }

    @Test
    void batchesOfBoundStatementsAreFencedAndAStaleEntryRaises() throws SQLException {
        try (Fence.Scope s = fence(12)) {
            int[] counts = dsl.batch(dsl.update(ORDERS).set(STATUS, (String) null).where(ID.eq((Long) null)))
                    .bind("paid", 1L).bind("paid", 2L).execute();
            assertThat(counts).containsExactly(1, 0);
        }
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
        try (Fence.Scope s = fence(11)) {
            assertThatThrownBy(() -> dsl.batch(dsl.update(ORDERS).set(STATUS, (String) null).where(ID.eq((Long) null)))
                    .bind("void", 1L).execute())
                    .satisfies(e -> requireCause(e, StaleFenceException.class));
        }
        assertThat(db.statusOf(1)).isEqualTo("paid");
    }

    @Test
    void selectsNeedNoFence() {
        Result<?> rows = dsl.select(ID, STATUS).from(ORDERS).fetch();
        assertThat(rows).hasSize(1);
    }

    /** jOOQ's SQL for an upsert: ON CONFLICT on PostgreSQL, ON DUPLICATE KEY UPDATE on MariaDB. */
    String upsertSql() {
        return dsl.insertInto(ORDERS).columns(ID, STATUS, AMOUNT).values(1L, "paid", 100L)
                .onConflict(ID).doUpdate().set(STATUS, "paid").getSQL(ParamType.INLINED);
    }

    @TestDatabase(TestDatabase.Kind.POSTGRESQL)
    static final class OnPostgresqlTest extends JooqFencingTest {
        OnPostgresqlTest(DataSource raw) throws SQLException {
            super(raw, SQLDialect.POSTGRES);
        }

        @Test
        void onConflictDoUpdateIsFencedOnPostgresql() throws SQLException {
            DSLContext dsl = DSL.using(new FrameworkFixture(rawOf(this)).fenced, SQLDialect.POSTGRES);
            try (Fence.Scope s = fence(12)) {
                dsl.insertInto(ORDERS).columns(ID, STATUS, AMOUNT).values(1L, "paid", 100L)
                        .onConflict(ID).doUpdate().set(STATUS, inline("paid")).execute();
            }
            FrameworkFixture db = new FrameworkFixture(rawOf(this));
            assertThat(db.statusOf(1)).isEqualTo("paid");
            assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
        }
    }

    @TestDatabase(TestDatabase.Kind.MARIADB)
    static final class OnMariadbTest extends JooqFencingTest {
        OnMariadbTest(DataSource raw) throws SQLException {
            super(raw, SQLDialect.MARIADB);
        }

        @Test
        void onConflictDoUpdateBecomesOnDuplicateKeyUpdateWhichRowModeRefuses() throws SQLException {
            // MariaDB's ON DUPLICATE KEY UPDATE has no WHERE to carry the check: refused in row mode
            // (docs/frameworks.md says what to use instead).
            assertThat(upsertSql()).containsIgnoringCase("on duplicate key update");
            FrameworkFixture db = new FrameworkFixture(rawOf(this));
            DSLContext dsl = DSL.using(db.fenced, SQLDialect.MARIADB);
            try (Fence.Scope s = fence(12)) {
                assertThatThrownBy(() -> dsl.insertInto(ORDERS).columns(ID, STATUS, AMOUNT).values(1L, "paid", 100L)
                        .onConflict(ID).doUpdate().set(STATUS, "paid").execute())
                        .satisfies(e -> requireCause(e, UnfenceableStatementException.class));
            }
            assertThat(db.statusOf(1)).isEqualTo("pending");
        }
    }

    private static DataSource rawOf(JooqFencingTest test) {
        return test.db.raw;
    }
}
