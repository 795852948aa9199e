package dev.fencing.it.frameworks;

import static dev.fencing.it.frameworks.FrameworkFixture.fence;
import static dev.fencing.it.frameworks.FrameworkFixture.requireCause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.testing.TestDatabase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.sql.SQLException;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.AvailableSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hibernate ORM (the version Spring Boot 4 manages) over a FencingDataSource: versioned entities,
 * JDBC batches, identity and sequence ids, merge, remove, bulk HQL and the stateless session.
 */
abstract class HibernateFencingTest {

    @Entity(name = "PurchaseOrder")
    @Table(name = "orders")
    public static class Order {
        @Id
        public Long id;
        public String status;
        public long amount;
        @Version
        public int version;
        /** The driver owns the column: read it, never write it. */
        @Column(name = "last_fence", insertable = false, updatable = false)
        public Long lastFence;
    }

    @Entity
    @Table(name = "payments")
    public static class Payment {
        @Id
        @GeneratedValue(strategy = GenerationType.IDENTITY)
        public Long id;
        @Column(name = "order_id")
        public long orderId;
        public long amount;
    }

    @Entity
    @Table(name = "invoices")
    public static class Invoice {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "invoices")
        @SequenceGenerator(name = "invoices", sequenceName = "invoices_seq", allocationSize = 50)
        public Long id;
        public long amount;
    }

    private final FrameworkFixture db;
    private SessionFactory sessions;

    HibernateFencingTest(DataSource raw) throws SQLException {
        this.db = new FrameworkFixture(raw);
    }

    @BeforeEach
    void start() throws SQLException {
        db.reset();
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder()
                .applySetting(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, db.fenced)
                .applySetting(AvailableSettings.STATEMENT_BATCH_SIZE, 20)
                .applySetting(AvailableSettings.ORDER_UPDATES, true)
                .build();
        sessions = new MetadataSources(registry).addAnnotatedClass(Order.class).addAnnotatedClass(Payment.class)
                .addAnnotatedClass(Invoice.class).buildMetadata().buildSessionFactory();
    }

    @AfterEach
    void stop() {
        sessions.close();
    }

    private void inTransaction(long token, Consumer<Session> work) {
        try (Fence.Scope s = fence(token)) {
            sessions.inTransaction(work);
        }
    }

    @Test
    void persistRecordsTheFenceForAssignedIdentityAndSequenceIds() throws SQLException {
        Payment payment = new Payment();
        Invoice invoice = new Invoice();
        inTransaction(12, session -> {
            Order order = new Order();
            order.id = 2L;
            order.status = "pending";
            order.amount = 5;
            session.persist(order);
            payment.orderId = 2;
            payment.amount = 5;
            session.persist(payment);
            invoice.amount = 5;
            session.persist(invoice);
        });
        assertThat(db.fenceOf("orders", 2)).isEqualTo(12);
        assertThat(db.fenceOf("payments", payment.id)).isEqualTo(12);
        assertThat(db.fenceOf("invoices", invoice.id)).isEqualTo(12);
    }

    @Test
    void aVersionedUpdateUnderTheCurrentFenceIsAppliedAndTheEntitySeesTheFenceAfterRefresh() throws SQLException {
        inTransaction(12, session -> {
            Order order = session.find(Order.class, 1L);
            order.status = "paid";
            session.flush();
            session.refresh(order);
            assertThat(order.lastFence).isEqualTo(12);
            assertThat(order.version).isEqualTo(1);
        });
        assertThat(db.statusOf(1)).isEqualTo("paid");
    }

    @Test
    void aStaleVersionedUpdateFailsTheTransactionWithTheStaleFenceInItsCauses() throws SQLException {
        assertThatThrownBy(() -> inTransaction(5, session -> session.find(Order.class, 1L).status = "paid"))
                .satisfies(e -> {
                    StaleFenceException stale = requireCause(e, StaleFenceException.class);
                    assertThat(stale.attemptedFence()).isEqualTo(5);
                    assertThat(stale.table()).isEqualTo("orders");
                });
        assertThat(db.statusOf(1)).isEqualTo("pending");
        assertThat(db.fenceOf("orders", 1)).isEqualTo(10);
    }

    @Test
    void aStaleWriterIsToldItIsStaleEvenWhenTheNewHolderAlsoBumpedTheVersion() throws SQLException {
        // A loads version 0 under fence 5, B (fence 12) changes the order (version 1), then A
        // flushes: its UPDATE .. WHERE id = ? AND version = 0 matches no row. Read by the primary
        // key, the row holds fence 12 > 5: the driver reports the stale fence rather than leaving
        // Hibernate to call it an ordinary optimistic-lock conflict.
        try (Session a = sessions.openSession()) {
            Order stale = a.find(Order.class, 1L);
            inTransaction(12, session -> session.find(Order.class, 1L).status = "paid by B");
            assertThatThrownBy(() -> {
                try (Fence.Scope s = fence(5)) {
                    a.beginTransaction();
                    stale.status = "paid by A";
                    a.getTransaction().commit();
                }
            }).satisfies(e -> {
                StaleFenceException cause = requireCause(e, StaleFenceException.class);
                assertThat(cause.attemptedFence()).isEqualTo(5);
                assertThat(cause.currentFence()).hasValue(12);
            });
        }
        assertThat(db.statusOf(1)).isEqualTo("paid by B");
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
    }

    @Test
    void bulkHqlDeleteIsFenced() throws SQLException {
        // On MariaDB Hibernate 7 writes `delete o1_0 from orders o1_0 where ..`: the single-table
        // alias form, fenced like any other delete.
        assertThatThrownBy(() -> inTransaction(5, session -> session.createMutationQuery(
                "delete from PurchaseOrder where status = 'pending'").executeUpdate()))
                .satisfies(e -> requireCause(e, StaleFenceException.class));
        assertThat(db.count("orders")).isEqualTo(1);
        inTransaction(12, session -> session.createMutationQuery("delete from PurchaseOrder where status = 'pending'")
                .executeUpdate());
        assertThat(db.count("orders")).isZero();
    }

    @Test
    void aWriteWithNoFenceInScopeIsRefused() throws SQLException {
        assertThatThrownBy(() -> sessions.inTransaction(session -> session.find(Order.class, 1L).status = "paid"))
                .satisfies(e -> requireCause(e, MissingFenceException.class));
        assertThat(db.statusOf(1)).isEqualTo("pending");
    }

    @Test
    void jdbcBatchesOfUpdatesAreFenced() throws SQLException {
        inTransaction(12, session -> {
            for (long id = 2; id <= 6; id++) {
                Order order = new Order();
                order.id = id;
                order.status = "pending";
                order.amount = id;
                session.persist(order);
            }
        });
        inTransaction(13, session -> session.createSelectionQuery("from PurchaseOrder", Order.class).getResultList()
                .forEach(order -> order.status = "shipped"));
        assertThat(db.longOf("SELECT COUNT(*) FROM orders WHERE status = 'shipped' AND last_fence = 13")).isEqualTo(6);
    }

    @Test
    void mergeOfADetachedEntityAndRemoveAreFenced() throws SQLException {
        Order detached = sessions.fromTransaction(session -> session.find(Order.class, 1L));
        detached.status = "paid";
        inTransaction(12, session -> session.merge(detached));
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);

        assertThatThrownBy(() -> inTransaction(11, session -> session.remove(session.find(Order.class, 1L))))
                .satisfies(e -> requireCause(e, StaleFenceException.class));
        inTransaction(12, session -> session.remove(session.find(Order.class, 1L)));
        assertThat(db.count("orders")).isZero();
    }

    @Test
    void bulkHqlUpdateIsFenced() throws SQLException {
        inTransaction(12, session -> assertThat(session.createMutationQuery(
                "update PurchaseOrder set status = :paid where status = :pending")
                .setParameter("paid", "paid").setParameter("pending", "pending").executeUpdate()).isEqualTo(1));
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
        assertThatThrownBy(() -> sessions.inTransaction(session -> session.createMutationQuery(
                "update PurchaseOrder set status = 'void'").executeUpdate()))
                .satisfies(e -> requireCause(e, MissingFenceException.class));
    }

    @Test
    void statelessSessionInsertAndUpdateAreFenced() throws SQLException {
        try (Fence.Scope s = fence(12); StatelessSession session = sessions.openStatelessSession()) {
            session.getTransaction().begin();
            Order order = new Order();
            order.id = 3L;
            order.status = "pending";
            order.amount = 3;
            session.insert(order);
            Order one = session.get(Order.class, 1L);
            one.status = "paid";
            session.update(one);
            session.getTransaction().commit();
        }
        assertThat(db.fenceOf("orders", 3)).isEqualTo(12);
        assertThat(db.fenceOf("orders", 1)).isEqualTo(12);
    }

    @TestDatabase(TestDatabase.Kind.POSTGRESQL)
    static final class OnPostgresqlTest extends HibernateFencingTest {
        OnPostgresqlTest(DataSource raw) throws SQLException {
            super(raw);
        }

        @Test
        void statelessUpsertSendsMergeWhichRowModeRefuses() throws SQLException {
            // Hibernate 7 sends MERGE for StatelessSession.upsert on PostgreSQL: refused without the
            // database guard (docs/frameworks.md).
            try (Fence.Scope s = fence(12); StatelessSession session = sessionsOf(this).openStatelessSession()) {
                session.getTransaction().begin();
                Order order = new Order();
                order.id = 1L;
                order.status = "paid";
                order.amount = 100;
                assertThatThrownBy(() -> session.upsert(order))
                        .satisfies(e -> requireCause(e, UnfenceableStatementException.class));
                session.getTransaction().rollback();
            }
        }

    }

    @TestDatabase(TestDatabase.Kind.MARIADB)
    static final class OnMariadbTest extends HibernateFencingTest {
        OnMariadbTest(DataSource raw) throws SQLException {
            super(raw);
        }
    }

    static SessionFactory sessionsOf(HibernateFencingTest test) {
        return test.sessions;
    }

}
