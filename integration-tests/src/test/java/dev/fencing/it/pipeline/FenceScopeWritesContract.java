package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.MissingFenceException;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Scopes closed out of order, or from another thread, must not leave a closed scope's fence on the
 * writes that follow: the database holds the fence each write carried.
 */
abstract class FenceScopeWritesContract extends OrdersFixture {

    @Test
    void afterOutOfOrderClosingTheNextWritesAreRefusedNotFencedWithAClosedFence() throws SQLException {
        seed(1, "pending", 10, 0);
        Connection connection = connection();
        Fence.Scope a = Fence.enter(3);
        Fence.Scope b = Fence.enter(20);
        a.close();
        b.close();
        PreparedStatement update = track(connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?"));
        update.setString(1, "paid");
        update.setLong(2, 1);
        assertThatThrownBy(update::executeUpdate).isInstanceOf(MissingFenceException.class);
        PreparedStatement insert = track(connection.prepareStatement(
                "INSERT INTO orders (id, status, amount) VALUES (?, ?, ?)"));
        insert.setLong(1, 2);
        insert.setString(2, "new");
        insert.setLong(3, 5);
        assertThatThrownBy(insert::executeUpdate).isInstanceOf(MissingFenceException.class);
        assertThat(order(1)).isEqualTo(new Order(1, "pending", 10, 0));
        assertThat(order(2)).isNull();
    }

    @Test
    void theInnerScopeStillOpenAfterItsOuterClosedIsTheOneWritten() throws SQLException {
        seed(1, "pending", 10, 0);
        Connection connection = connection();
        Fence.Scope outer = Fence.enter(3);
        Fence.Scope inner = Fence.enter(20);
        outer.close();
        try (PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
            update.setString(1, "paid");
            update.setLong(2, 1);
            assertThat(update.executeUpdate()).isEqualTo(1);
        } finally {
            inner.close();
        }
        assertThat(order(1).lastFence()).isEqualTo(20);
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void aScopeClosedOnAnotherThreadNoLongerFencesItsThreadsWrites() throws Exception {
        seed(1, "pending", 10, 0);
        Connection connection = connection();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Fence.Scope outer = Fence.enter(4)) {
            Fence.Scope inner = Fence.enter(30);
            other.submit(inner::close).get(5, TimeUnit.SECONDS);
            try (PreparedStatement update = connection.prepareStatement("UPDATE orders SET status = ? WHERE id = ?")) {
                update.setString(1, "paid");
                update.setLong(2, 1);
                assertThat(update.executeUpdate()).isEqualTo(1);
            }
        } finally {
            other.shutdownNow();
        }
        // the write carried the open outer scope's fence, never the closed one's
        assertThat(order(1).lastFence()).isEqualTo(4);
    }
}
