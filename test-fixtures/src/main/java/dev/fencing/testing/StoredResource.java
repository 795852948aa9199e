package dev.fencing.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A value an extension keeps in the {@link ExtensionContext.Store} of the test class, with the
 * action that cleans it up when JUnit closes that store (after the class). It is both
 * {@link AutoCloseable} (what JUnit 5.13 and later close) and a {@code CloseableResource} (what
 * earlier versions close), and closes once whichever JUnit calls.
 */
// deprecation: CloseableResource is kept for users on JUnit before 5.13; try: close() may throw anything its cleanup does
@SuppressWarnings({"deprecation", "try"})
final class StoredResource<T> implements AutoCloseable, ExtensionContext.Store.CloseableResource {

    /** Cleans up a stored value. */
    @FunctionalInterface
    interface Cleanup {
        void run() throws Exception;
    }

    private final T value;
    private final Cleanup cleanup;
    private final AtomicBoolean closed = new AtomicBoolean();

    StoredResource(T value, Cleanup cleanup) {
        this.value = value;
        this.cleanup = cleanup;
    }

    T get() {
        return value;
    }

    @Override
    public void close() throws Exception {
        if (closed.compareAndSet(false, true)) {
            cleanup.run();
        }
    }
}
