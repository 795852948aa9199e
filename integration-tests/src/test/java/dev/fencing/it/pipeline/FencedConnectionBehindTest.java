package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.jdbc.FencingDataSource;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which connections count as fenced: the one answer that {@code isFenced}, the agent, the epoch
 * claim and the database guard's migrations all rely on. A wrapper that claims to wrap a fenced
 * connection but hands out something else reads as unfenced, never as an exception. The driver's
 * connection behind a fenced one is refused to any caller outside the driver (here: a test).
 */
class FencedConnectionBehindTest {

    private static final FencingConfig CONFIG = FencingConfig.builder().tables("orders").build();

    @Test
    void aFencedConnectionAndAPoolsProxyOverOneAreFenced() throws SQLException {
        try (Connection fenced = new FencingDataSource(H2.database(), CONFIG).getConnection()) {
            Connection pooled = proxy(fenced, (method, args) -> null);
            assertThat(FencedConnection.fencedBehind(fenced)).isSameAs(fenced);
            assertThat(FencedConnection.fencedBehind(pooled)).isSameAs(fenced);
            assertThat(ConnectionFencing.fencedWith(pooled)).isSameAs(CONFIG);
            assertThatThrownBy(() -> FencedConnection.databaseBehind(pooled)).isInstanceOf(FencingException.class)
                    .hasMessageContaining("not handed out");
        }
    }

    @Test
    void aPlainConnectionNullAndLyingOrBrokenWrappersAreNotFenced() throws SQLException {
        try (Connection plain = H2.database().getConnection()) {
            Connection claimsButHandsOutItself = proxy(plain, (method, args) ->
                    method.equals("isWrapperFor") ? Boolean.TRUE : method.equals("unwrap") ? plain : null);
            Connection throwsOnAsking = proxy(plain, (method, args) -> {
                throw new IllegalStateException("pool closed");
            });
            assertThat(FencedConnection.fencedBehind(plain)).isNull();
            assertThat(FencedConnection.fencedBehind(null)).isNull();
            assertThat(FencedConnection.fencedBehind(claimsButHandsOutItself)).isNull();
            assertThat(FencedConnection.fencedBehind(throwsOnAsking)).isNull();
            assertThat(ConnectionFencing.isFenced(claimsButHandsOutItself)).isFalse();
        }
    }

    @Test
    void noPublicMethodOfAFencedConnectionHandsOutTheDriversConnection() {
        for (java.lang.reflect.Method method : FencedConnection.class.getMethods()) {
            if (!java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                assertThat(Connection.class.isAssignableFrom(method.getReturnType()))
                        .as("public " + method + " may hand out a connection that unwrap refuses").isFalse();
            }
        }
    }

    /**
     * A pool-like proxy over {@code target}: {@code isWrapperFor} and {@code unwrap} are answered
     * by {@code answer} when it returns non-null (or throws), else as a pool does (by the target).
     */
    private static Connection proxy(Connection target, BiFunction<String, Object[], Object> answer) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (self, method, args) -> {
                    String name = method.getName();
                    if (name.equals("isWrapperFor") || name.equals("unwrap")) {
                        Object answered = answer.apply(name, args);
                        if (answered != null) {
                            return answered;
                        }
                        Class<?> iface = (Class<?>) args[0];
                        if (name.equals("isWrapperFor")) {
                            return iface.isInstance(target) || target.isWrapperFor(iface);
                        }
                        return iface.isInstance(target) ? target : target.unwrap(iface);
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
