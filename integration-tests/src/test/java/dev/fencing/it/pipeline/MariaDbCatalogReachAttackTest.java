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
 * Attacks on the whole-catalog facts (issue 29, finding 3) on MariaDB: writes through a fenced
 * data source, under a stale fence (40 against the row's 100), that change rows of a fenced table
 * through a cascade into a system-versioned fenced table (information_schema calls it
 * {@code SYSTEM VERSIONED}, not {@code BASE TABLE}), and through a same-named table of another
 * database when {@code fencing.tables} is qualified.
 * Each test first shows on the raw path (rolled back) that the write changes the fenced row, then
 * runs it through the driver and reads the fenced row back raw: it must still be there.
 */
@TestDatabase(TestDatabase.Kind.MARIADB)
class MariaDbCatalogReachAttackTest extends CatalogReachAttackFixture {

    private final DataSource database;
    private String scratch;
    private String other;

    MariaDbCatalogReachAttackTest(DataSource database) {
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
        sql("DROP TABLE IF EXISTS fd_customers",
                "DROP DATABASE IF EXISTS " + other, "CREATE DATABASE " + other,
                "ALTER TABLE orders ADD COLUMN cid BIGINT");
        seed(1, "pending", 10, 100);
        sql("UPDATE orders SET cid = 1 WHERE id = 1");
    }

    @AfterEach
    void dropOtherSchema() throws SQLException {
        sql("DROP TABLE IF EXISTS orders", "DROP TABLE IF EXISTS fd_customers", "DROP DATABASE IF EXISTS " + other);
    }

    @Test
    void aCascadeIntoASystemVersionedFencedTableIsRefused() throws SQLException {
        sql("ALTER TABLE orders ADD SYSTEM VERSIONING",
                "CREATE TABLE fd_customers (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')",
                "ALTER TABLE orders ADD CONSTRAINT fd_order_customer FOREIGN KEY (cid) REFERENCES fd_customers (id) "
                        + "ON DELETE CASCADE");
        String write = "DELETE FROM fd_customers WHERE id = 1";
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
    void aCascadeAddedByExecuteImmediateThroughTheDriverIsStillRefused() throws SQLException {
        sql("CREATE TABLE fd_customers (id BIGINT PRIMARY KEY, name VARCHAR(20))",
                "INSERT INTO fd_customers (id, name) VALUES (1, 'ann')");
        // EXECUTE IMMEDIATE is no schema-change head, so the facts are not read again after it
        try (Fence.Scope scope = Fence.enter(40); Statement statement = connection(fenced()).createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM " + scratch + ".orders").close(); // facts learned
            statement.execute("EXECUTE IMMEDIATE CONCAT('ALTER TABLE ord', 'ers ADD CONSTRAINT fd_order_customer "
                    + "FOREIGN KEY (cid) REFERENCES fd_customers (id) ON DELETE CASCADE')");
            statement.execute("DELETE FROM fd_customers WHERE id = 1");
        } catch (SQLException refused) {
            // what should happen (for the EXECUTE IMMEDIATE or the delete)
        }
        orderOneIsUnchanged();
    }
}
