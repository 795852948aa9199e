package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attacks on the whole-catalog facts (issue 29, findings 3 and 4) on PostgreSQL: writes through a
 * fenced data source, under a stale fence (40 against the row's 100), that change rows of a
 * fenced table through relatives of cascade parents, {@code TRUNCATE .. CASCADE} of such a
 * relative, foreign keys declared on relatives, DDL, COPY and dynamic SQL on relatives, and
 * same-named tables of another schema when {@code fencing.tables} is qualified. Where a helper
 * allows, a test first shows on the raw path (rolled back) that the write changes the fenced row;
 * each runs the write through the driver and reads the fenced row back raw: it must be unchanged.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
class PostgresCatalogReachAttackTest extends CatalogReachAttackFixture {

    private final DataSource database;
    private String scratch;
    private String other;

    PostgresCatalogReachAttackTest(DataSource database) {
        this.database = database;
    }

    @Override
    DataSource raw() {
        return database;
    }

    @Override
    String scratch() {
        return scratch;
    }

    @BeforeEach
    void otherSchema() throws SQLException {
        scratch = ScratchAreas.name(database);
        other = scratch + "_atk";
        sql("DROP TABLE IF EXISTS fd_people, fd_customers, fd_allcust, fd_ledger, fd_ledger_base CASCADE",
                "DROP SCHEMA IF EXISTS " + other + " CASCADE", "CREATE SCHEMA " + other,
                "ALTER TABLE orders ADD COLUMN cid BIGINT");
        seed(1, "pending", 10, 100);
        sql("UPDATE orders SET cid = 1 WHERE id = 1");
    }

    @AfterEach
    void dropOtherSchema() throws SQLException {
        sql("DROP TABLE IF EXISTS orders, fd_people, fd_customers, fd_allcust, fd_ledger, fd_ledger_base CASCADE",
                "DROP SCHEMA IF EXISTS " + other + " CASCADE");
    }

    /** fd_customers (cascade parent of orders) inherits from fd_people: deleting through fd_people cascades. */
    private void customersInheritFromPeople() throws SQLException {
        sql("CREATE TABLE fd_people (id BIGINT, name TEXT)",
                "CREATE TABLE fd_customers (PRIMARY KEY (id)) INHERITS (fd_people)",
                "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')",
                "ALTER TABLE orders ADD CONSTRAINT fd_order_customer FOREIGN KEY (cid) REFERENCES fd_customers (id) "
                        + "ON DELETE CASCADE");
    }

    @Test
    void aDeleteOfTheInheritanceParentOfACascadeParentIsRefused() throws SQLException {
        customersInheritFromPeople();
        String write = "DELETE FROM fd_people WHERE id = 1";
        assertThat(rawWriteChangesOrder(write)).isTrue();
        throughTheDriver(fenced(), write);
        orderOneIsUnchanged();
    }

    @Test
    void truncateCascadeOfTheInheritanceParentOfAReferencedTableIsRefused() throws SQLException {
        customersInheritFromPeople();
        String write = "TRUNCATE fd_people CASCADE";
        assertThat(rawWriteChangesOrder(write)).isTrue();
        throughTheDriver(fenced(), write);
        orderOneIsUnchanged();
    }

    /** orders references one partition of fd_allcust directly; deleting through the partitioned parent cascades. */
    private void ordersReferenceAPartition() throws SQLException {
        sql("CREATE TABLE fd_allcust (id BIGINT, name TEXT) PARTITION BY RANGE (id)",
                "CREATE TABLE fd_customers PARTITION OF fd_allcust (PRIMARY KEY (id)) FOR VALUES FROM (0) TO (1000)",
                "INSERT INTO fd_allcust (id, name) VALUES (1, 'ann')",
                "ALTER TABLE orders ADD CONSTRAINT fd_order_customer FOREIGN KEY (cid) REFERENCES fd_customers (id) "
                        + "ON DELETE CASCADE");
    }

    @Test
    void aDeleteOfThePartitionedParentOfAReferencedPartitionIsRefused() throws SQLException {
        ordersReferenceAPartition();
        String write = "DELETE FROM fd_allcust WHERE id = 1";
        assertThat(rawWriteChangesOrder(write)).isTrue();
        throughTheDriver(fenced(), write);
        orderOneIsUnchanged();
    }

    @Test
    void truncateCascadeOfThePartitionedParentOfAReferencedPartitionIsRefused() throws SQLException {
        ordersReferenceAPartition();
        String write = "TRUNCATE fd_allcust CASCADE";
        assertThat(rawWriteChangesOrder(write)).isTrue();
        throughTheDriver(fenced(), write);
        orderOneIsUnchanged();
    }

    /** fencing.tables names the scratch schema's orders only. */
    private FencingDataSource qualified(String table) {
        return new FencingDataSource(database, FencingConfig.builder().tables(scratch + "." + table).build());
    }

    @Test
    void aSameNamedCascadeParentInAnotherSchemaIsRefusedWhenTheConfigIsQualified() throws SQLException {
        sql("CREATE TABLE " + other + ".orders (id BIGINT PRIMARY KEY)",
                "INSERT INTO " + other + ".orders (id) VALUES (1)",
                "ALTER TABLE orders ADD CONSTRAINT fd_order_other FOREIGN KEY (cid) REFERENCES " + other
                        + ".orders (id) ON DELETE CASCADE");
        String write = "DELETE FROM " + other + ".orders WHERE id = 1";
        assertThat(rawWriteChangesOrder(write)).isTrue();
        throughTheDriver(qualified("orders"), write);
        orderOneIsUnchanged();
    }

    @Test
    void aSameNamedPartitionInAnotherSchemaIsRefusedWhenTheConfigIsQualified() throws SQLException {
        sql("CREATE TABLE fd_ledger (id BIGINT, status TEXT, last_fence BIGINT NOT NULL DEFAULT 0) PARTITION BY RANGE (id)",
                "CREATE TABLE " + other + ".fd_ledger PARTITION OF " + scratch + ".fd_ledger FOR VALUES FROM (0) TO (1000)",
                "INSERT INTO fd_ledger (id, status, last_fence) VALUES (1, 'pending', 100)");
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(qualified("fd_ledger")).createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM " + scratch + ".fd_ledger").close();
            statement.execute("UPDATE " + other + ".fd_ledger SET status = 'stolen'");
        } catch (SQLException refused) {
            // what should happen
        }
        try (var connection = raw().getConnection(); Statement statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT status FROM " + scratch + ".fd_ledger WHERE id = 1")) {
            rows.next();
            assertThat(rows.getString(1)).as("fenced fd_ledger row read back raw").isEqualTo("pending");
        }
    }

    /** orders partitioned; its one partition (not orders itself) holds the foreign key that cascades. */
    private void aPartitionOfOrdersHoldsTheForeignKey() throws SQLException {
        sql("DROP TABLE orders",
                "CREATE TABLE orders (id BIGINT, cid BIGINT, status VARCHAR(20), amount BIGINT, "
                        + "last_fence BIGINT NOT NULL DEFAULT 0) PARTITION BY RANGE (id)",
                "CREATE TABLE " + other + ".orders_p1 PARTITION OF " + scratch + ".orders FOR VALUES FROM (0) TO (1000)",
                "CREATE TABLE fd_customers (id BIGINT PRIMARY KEY, name TEXT)",
                "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')",
                "ALTER TABLE " + other + ".orders_p1 ADD CONSTRAINT fd_p1_customer FOREIGN KEY (cid) "
                        + "REFERENCES " + scratch + ".fd_customers (id) ON DELETE CASCADE ON UPDATE CASCADE");
        seed(1, "pending", 10, 100);
        sql("UPDATE orders SET cid = 1 WHERE id = 1");
    }

    @Test
    void aDeleteThatCascadesThroughAForeignKeyOfAPartitionOfAFencedTableIsRefused() throws SQLException {
        aPartitionOfOrdersHoldsTheForeignKey();
        String write = "DELETE FROM fd_customers WHERE id = 1";
        assertThat(rawWriteChangesOrder(write)).isTrue();
        throughTheDriver(fenced(), write);
        orderOneIsUnchanged();
    }

    @Test
    void anUpdateThatCascadesThroughAForeignKeyOfAPartitionOfAFencedTableIsRefused() throws SQLException {
        aPartitionOfOrdersHoldsTheForeignKey();
        throughTheDriver(fenced(), "UPDATE fd_customers SET id = 2 WHERE id = 1");
        assertThat(count("orders WHERE cid = 1")).as("order 1 still references customer 1, read back raw").isEqualTo(1);
    }

    @Test
    void aDeleteThatCascadesThroughAForeignKeyOfAnInheritanceChildOfAFencedTableIsRefused() throws SQLException {
        sql("CREATE TABLE fd_customers (id BIGINT PRIMARY KEY, name TEXT)",
                "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')",
                "CREATE TABLE fd_ledger (id BIGINT PRIMARY KEY, cid BIGINT, status TEXT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE " + other + ".fd_ledger_extra (FOREIGN KEY (cid) REFERENCES " + scratch
                        + ".fd_customers (id) ON DELETE CASCADE) INHERITS (" + scratch + ".fd_ledger)",
                "INSERT INTO " + other + ".fd_ledger_extra (id, cid, status, last_fence) VALUES (1, 1, 'pending', 100)");
        try (Fence.Scope scope = Fence.enter(40);
             Statement statement = connection(qualified("fd_ledger")).createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM " + scratch + ".fd_ledger").close();
            statement.execute("DELETE FROM fd_customers WHERE id = 1");
        } catch (SQLException refused) {
            // what should happen
        }
        assertThat(count(scratch + ".fd_ledger")).as("fenced fd_ledger rows read back raw").isEqualTo(1);
    }

    @Test
    void copyIntoAPartitionOfAFencedTableIsRefused() throws SQLException {
        aPartitionOfOrdersHoldsTheForeignKey();
        throughTheDriver(fenced(), "COPY " + other + ".orders_p1 (id, status, amount, last_fence) FROM PROGRAM "
                + "'echo 5,forged,1,0' WITH (FORMAT csv)");
        assertThat(order(5)).as("a row copied into the fenced table, read back raw").isNull();
    }

    @Test
    void dropTableOfAPartitionOfAFencedTableIsRefused() throws SQLException {
        aPartitionOfOrdersHoldsTheForeignKey();
        throughTheDriver(fenced(), "DROP TABLE " + other + ".orders_p1");
        orderOneIsUnchanged();
    }

    /** fd_ledger (fenced) inherits from fd_ledger_base and holds one row with fence 100. */
    private void ledgerInheritsFromBase() throws SQLException {
        sql("CREATE TABLE fd_ledger_base (id BIGINT, status TEXT, last_fence BIGINT NOT NULL DEFAULT 0)",
                "CREATE TABLE fd_ledger () INHERITS (fd_ledger_base)",
                "INSERT INTO fd_ledger (id, status, last_fence) VALUES (1, 'pending', 100)");
    }

    /** The fenced row's status read back raw; "(table dropped)" when fd_ledger is gone. */
    private String ledgerStatus() throws SQLException {
        try (var connection = raw().getConnection(); Statement statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT to_regclass('" + scratch + ".fd_ledger') IS NOT NULL")) {
            rows.next();
            if (!rows.getBoolean(1)) {
                return "(table dropped)";
            }
            try (var status = statement.executeQuery("SELECT status FROM " + scratch + ".fd_ledger WHERE id = 1")) {
                return status.next() ? status.getString(1) : null;
            }
        }
    }

    @Test
    void alterColumnTypeUsingOnTheInheritanceParentOfAFencedTableIsRefused() throws SQLException {
        ledgerInheritsFromBase();
        throughTheDriver(qualified("fd_ledger"), "ALTER TABLE fd_ledger_base ALTER COLUMN status TYPE TEXT USING 'stolen'");
        assertThat(ledgerStatus()).as("fenced fd_ledger row read back raw").isEqualTo("pending");
    }

    @Test
    void dropTableCascadeOfTheInheritanceParentOfAFencedTableIsRefused() throws SQLException {
        ledgerInheritsFromBase();
        throughTheDriver(qualified("fd_ledger"), "DROP TABLE fd_ledger_base CASCADE");
        assertThat(ledgerStatus()).as("fenced fd_ledger row read back raw").isEqualTo("pending");
    }

    @Test
    void aDeleteOfAPartitionOfTheCustomersThatThePartitionedParentOfAFencedPartitionReferencesIsRefused()
            throws SQLException {
        sql("CREATE TABLE fd_allcust (id BIGINT PRIMARY KEY, name TEXT) PARTITION BY RANGE (id)",
                "CREATE TABLE fd_customers PARTITION OF fd_allcust FOR VALUES FROM (0) TO (1000)",
                "INSERT INTO fd_allcust (id, name) VALUES (1, 'ann')",
                "CREATE TABLE fd_ledger (id BIGINT, cid BIGINT, status TEXT, last_fence BIGINT NOT NULL DEFAULT 0, "
                        + "FOREIGN KEY (cid) REFERENCES fd_allcust (id) ON DELETE CASCADE) PARTITION BY RANGE (id)",
                "CREATE TABLE fd_ledger_base PARTITION OF fd_ledger FOR VALUES FROM (0) TO (1000)",
                "INSERT INTO fd_ledger (id, cid, status, last_fence) VALUES (1, 1, 'pending', 100)");
        // fenced: the partition fd_ledger_base; the foreign key is its partitioned parent's, and the
        // catalog holds its clone fd_ledger -> fd_customers, whose child the cascade walk never seeds
        try (Fence.Scope scope = Fence.enter(40);
             Statement statement = connection(qualified("fd_ledger_base")).createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM " + scratch + ".fd_ledger_base").close();
            statement.execute("DELETE FROM fd_customers WHERE id = 1");
        } catch (SQLException refused) {
            // what should happen
        }
        assertThat(count(scratch + ".fd_ledger_base")).as("fenced fd_ledger_base rows read back raw").isEqualTo(1);
    }

    @Test
    void aPartitionRenamedByDynamicSqlThroughTheDriverIsStillRefused() throws SQLException {
        aPartitionOfOrdersHoldsTheForeignKey();
        // a DO block is no schema-change head, so the facts are not read again after it
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(fenced()).createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM " + scratch + ".orders").close(); // facts learned
            statement.execute("DO $$ BEGIN EXECUTE 'ALTER TABLE " + other + ".ord' || 'ers_p1 RENAME TO fd_stash'; END $$");
            statement.execute("UPDATE " + other + ".fd_stash SET status = 'stolen'");
        } catch (SQLException refused) {
            // what should happen (for the DO block or the update)
        }
        orderOneIsUnchanged();
    }
}
