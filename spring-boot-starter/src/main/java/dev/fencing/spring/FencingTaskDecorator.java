package dev.fencing.spring;

import dev.fencing.Fence;

import java.util.Objects;
import java.util.concurrent.Executor;

import org.springframework.core.task.TaskDecorator;

/**
 * Hands the submitting thread's fence to the task, deliberately ({@link Fence#wrap(Runnable)}): a
 * fence belongs to the thread that entered it, so work a {@link FencedLock} method gives to a pool
 * is otherwise refused ({@code MissingFenceException}). Register it on the executors whose tasks
 * should carry the fence of the code that submits them:
 *
 * <pre>{@code
 * @Bean
 * TaskDecorator fencingTaskDecorator() {   // Boot applies it to its @Async executor when it is the only one
 *     return new FencingTaskDecorator();
 * }
 *
 * executor.setTaskDecorator(new FencingTaskDecorator());        // a ThreadPoolTaskExecutor of yours
 * Executor fenced = FencingTaskDecorator.executor(pool);        // any other Executor
 * }</pre>
 *
 * <p>The task carries the fence, not the lock: it is fenced like the lock holder's own writes
 * (a later holder's fence wins over it), but if it runs after the method returned, the lock is
 * no longer held, and its writes are not part of the method's transaction. Wait for it inside
 * the method when it must finish under the lock.
 */
public final class FencingTaskDecorator implements TaskDecorator {

    @Override
    public Runnable decorate(Runnable runnable) {
        return Fence.wrap(runnable);
    }

    /** An executor that runs each task under the fence that was current where it was submitted. */
    public static Executor executor(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return command -> executor.execute(Fence.wrap(command));
    }
}
