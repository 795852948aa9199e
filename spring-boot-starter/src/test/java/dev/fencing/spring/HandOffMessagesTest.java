package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.spring.app.HandOffService;

import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Work a @FencedLock method hands to another thread is refused (issue 33, Build item 3), and the
 * refusal names the cause: the thread without a fence, the thread holding one, Fence.wrap and the
 * starter's FencingTaskDecorator; a locked method reached without its proxy says so. The rows are
 * read back raw. Before, the message only said "no fence in scope for a write to fenced table".
 */
class HandOffMessagesTest extends StarterContextTest {

    @Autowired
    HandOffService service;

    private String status(long id) {
        return database.queryForObject("SELECT status FROM orders WHERE id = ?", String.class, id);
    }

    @Test
    void aWriteOnANewThreadIsRefusedNamingBothThreads() {
        insertPendingOrder(41);
        String caller = Thread.currentThread().getName();

        assertThatThrownBy(() -> service.onANewThread(41))
                .isInstanceOf(MissingFenceDataAccessException.class)
                .hasMessageContaining("no fence in scope on thread 'handoff-worker'")
                .hasMessageContaining("The fence is held by thread '" + caller + "' (lock 'handoff:41')")
                .hasMessageContaining("Fence.wrap(task)")
                .hasMessageContaining("FencingTaskDecorator")
                .hasMessageNotContaining("self-invocation");

        assertThat(status(41)).isEqualTo("pending");
    }

    @Test
    void aWriteInACompletableFutureIsRefusedNamingBothThreads() {
        insertPendingOrder(42);
        String caller = Thread.currentThread().getName();

        assertThatThrownBy(() -> service.inACompletableFuture(42))
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(MissingFenceDataAccessException.class)
                .hasMessageNotContaining("on thread '" + caller + "' for a write")
                .hasMessageContaining("The fence is held by thread '" + caller + "' (lock 'handoff:42')")
                .hasMessageContaining("Fence.wrap(task)");

        assertThat(status(42)).isEqualTo("pending");
    }

    @Test
    void aPoolWithTheFencingTaskDecoratorCarriesTheLeasesFence() throws Exception {
        insertPendingOrder(43);

        long fence = service.onAFencingExecutor(43);

        assertThat(database.queryForMap("SELECT status, last_fence FROM orders WHERE id = 43"))
                .containsEntry("status", "paid").containsEntry("last_fence", fence);
    }

    @Test
    void aLockedMethodReachedWithoutItsProxyIsNamed() {
        insertPendingOrder(44);

        assertThatThrownBy(() -> service.selfInvoking(44))
                .isInstanceOf(MissingFenceDataAccessException.class)
                .hasMessageContaining("The @FencedLock method " + HandOffService.class.getName() + ".locked is running"
                        + " on this thread without its lock")
                .hasMessageContaining("self-invocation");

        assertThat(status(44)).isEqualTo("pending");
    }
}
