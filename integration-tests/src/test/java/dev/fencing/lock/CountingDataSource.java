package dev.fencing.lock;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** A data source that counts the connections it hands out and those not closed yet. */
final class CountingDataSource {

    private CountingDataSource() {
    }

    /** {@code delegate}, counting the connections it opens ({@code opened}) and those still open ({@code open}). */
    static DataSource over(DataSource delegate, AtomicInteger opened, AtomicInteger open) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(delegate, method, args);
                    if (method.getName().equals("getConnection")) {
                        opened.incrementAndGet();
                        open.incrementAndGet();
                        return counted((Connection) result, open);
                    }
                    return result;
                });
    }

    private static Connection counted(Connection connection, AtomicInteger open) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close") && !connection.isClosed()) {
                        open.decrementAndGet();
                    }
                    return invoke(connection, method, args);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
