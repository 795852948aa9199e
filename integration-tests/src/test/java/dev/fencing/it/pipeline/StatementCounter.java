package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A data source whose connections count every statement execution sent through them (execute,
 * executeQuery, executeUpdate, executeBatch, on plain, prepared and callable statements): what the
 * driver sends on the database's connection, the round trips a test can count without timing.
 */
final class StatementCounter {

    private StatementCounter() {
    }

    static DataSource over(DataSource delegate, AtomicInteger sent) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(delegate, method, args);
                    return result instanceof Connection connection ? counted(connection, sent) : result;
                });
    }

    private static Connection counted(Connection connection, AtomicInteger sent) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    if (result instanceof Statement statement) {
                        return counted(statement, sent);
                    }
                    return result;
                });
    }

    private static Statement counted(Statement statement, AtomicInteger sent) {
        Class<?>[] interfaces = statement instanceof java.sql.CallableStatement ? new Class<?>[] {java.sql.CallableStatement.class}
                : statement instanceof java.sql.PreparedStatement ? new Class<?>[] {java.sql.PreparedStatement.class}
                : new Class<?>[] {Statement.class};
        return (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(), interfaces, (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                sent.incrementAndGet();
            }
            return invoke(statement, method, args);
        });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
