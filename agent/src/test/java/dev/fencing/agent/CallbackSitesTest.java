package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rule for a pool's calls into the application's code: which call sites are woven and what
 * the hooks do with the connection they pass. The end-to-end proof (writes under each fence, rows
 * read back raw) is {@link HandoutIT}'s callback cases.
 */
class CallbackSitesTest {

    private static final TypePool TYPES = TypePool.ClassLoading.ofSystemLoader();

    @Test
    void aConnectionParameterIsFencedAndASubtypeOfConnectionIsRefused() {
        assertThat(CallbackSites.kinds("(Ljava/sql/Connection;J)V", TYPES)).isEqualTo("C-");
        assertThat(CallbackSites.kinds("(Ljava/sql/Connection;Ljava/lang/String;)V", TYPES)).isEqualTo("C-");
        assertThat(CallbackSites.kinds("(Lorg/h2/jdbc/JdbcConnection;)V", TYPES)).isEqualTo("S");
    }

    /** A pool's interface with a private method its default method calls (by invokeinterface, Java 11 on). */
    interface WithPrivateMethod {
        private void own(Connection connection) {
        }

        default void callback(Connection connection) {
            own(connection);
        }
    }

    @Test
    void aPrivateInterfaceMethodIsNoCallback() {
        String owner = WithPrivateMethod.class.getName().replace('.', '/');
        assertThat(CallbackSites.overridable(owner, "own", "(Ljava/sql/Connection;)V", TYPES)).isFalse();
        assertThat(CallbackSites.overridable(owner, "callback", "(Ljava/sql/Connection;)V", TYPES)).isTrue();
        assertThat(CallbackSites.overridable("io/agroal/api/AgroalPoolInterceptor", "onConnectionAcquire",
                "(Ljava/sql/Connection;)V", TYPES)).isTrue();
        assertThat(CallbackSites.overridable("com/example/Missing", "on", "(Ljava/sql/Connection;)V", TYPES)).isFalse();
    }

    @Test
    void aCallPassingNoConnectionIsLeftAlone() {
        assertThat(CallbackSites.kinds("(Ljava/util/Properties;Ljava/lang/Object;)Z", TYPES)).isNull();
        assertThat(CallbackSites.kinds("(Ljavax/sql/PooledConnection;)V", TYPES)).isNull();
        // a type no loader has cannot be passed either: a call naming it cannot link
        assertThat(CallbackSites.kinds("(Lcom/example/MissingConnection;)V", TYPES)).isNull();
    }

    @Test
    void onlyAClassCallingAnInterfaceWithAConnectionIsRewritten() throws Exception {
        assertThat(CallbackSites.present(classfile("io/agroal/pool/util/ListenerHelper"))).isTrue();
        assertThat(CallbackSites.present(classfile("io/agroal/pool/util/InterceptorHelper"))).isTrue();
        assertThat(CallbackSites.present(classfile("com/mchange/v2/c3p0/impl/C3P0PooledConnectionPool$1PooledConnectionResourcePoolManager"))).isTrue();
        assertThat(CallbackSites.present(classfile("io/agroal/pool/util/StampedCopyOnWriteArrayList"))).isFalse();
        // declares methods taking a Connection, calls no interface with one
        assertThat(CallbackSites.present(classfile("org/vibur/dbcp/pool/DefaultHook$InitConnection"))).isFalse();
    }

    @Test
    void agroalsCallsIntoItsListenersAreWoven() throws Exception {
        String name = "io/agroal/pool/util/ListenerHelper";
        byte[] original = classfile(name);
        byte[] woven = new Weaver(tables()).weave(getClass().getClassLoader(), name, original);
        assertThat(woven).isNotNull().isNotEqualTo(original);
        String text = new String(woven, StandardCharsets.ISO_8859_1);
        assertThat(text).contains("dev/fencing/agent/bootstrap/AgentBridge").contains("callback");
    }

    @Test
    void onlyAnObjectOfThePoolsPackagesIsThePoolsOwn() throws Exception {
        // fenced for any other: HandoutIT's callback cases show the writes (this JVM has no agent to fence with)
        ConnectionHooks hooks = new ConnectionHooks(tables(), UrlFilter.ALL);
        Class<?> pool = Class.forName("io.agroal.pool.util.ListenerHelper");
        assertThat(hooks.poolsOwn(pool, Class.forName("io.agroal.pool.ConnectionPool"))).isTrue();
        assertThat(hooks.poolsOwn(pool, Class.forName("io.agroal.api.AgroalPoolInterceptor"))).isTrue();
        assertThat(hooks.poolsOwn(pool, getClass())).isFalse();
        assertThat(hooks.poolsOwn(pool, Class.forName("org.vibur.dbcp.pool.DefaultHook$InitConnection"))).isFalse();
    }

    @Test
    void aCallbackDeclaringTheDriversOwnConnectionTypeIsRefused() throws Exception {
        ConnectionHooks hooks = new ConnectionHooks(tables(), UrlFilter.ALL);
        Class<?> pool = Class.forName("io.agroal.pool.util.ListenerHelper");
        try (Connection raw = DriverManager.getConnection("jdbc:h2:mem:callbacks")) {
            assertThatThrownBy(() -> hooks.passedToCallback(pool, this, "Callback.on", org.h2.jdbc.JdbcConnection.class, raw))
                    .isInstanceOf(FencingException.class)
                    .hasMessageContaining("passes its connection to " + getClass().getName())
                    .hasMessageContaining("org.h2.jdbc.JdbcConnection, which a fenced connection cannot stand in for")
                    .hasMessageContaining("javax.sql.DataSource getConnection()");
            assertThat(raw.isClosed()).as("refused, it never reaches the callback").isTrue();
        }
    }

    @Test
    void aClosedConnectionPassesAsItIs() throws Exception {
        ConnectionHooks hooks = new ConnectionHooks(tables(), UrlFilter.ALL);
        Connection raw = DriverManager.getConnection("jdbc:h2:mem:callbacks");
        raw.close();
        // Agroal's onConnectionDestroy: nothing can be written through it, and it cannot be fenced
        assertThat(hooks.passedToCallback(Class.forName("io.agroal.pool.util.ListenerHelper"), this,
                "AgroalDataSourceListener.onConnectionDestroy", Connection.class, raw)).isSameAs(raw);
    }

    private static FencedTables tables() {
        Properties keys = new Properties();
        keys.setProperty(FencingConfig.TABLES, "orders");
        return new FencedTables(keys);
    }

    private static byte[] classfile(String internalName) throws IOException {
        try (InputStream in = CallbackSitesTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in.readAllBytes();
        }
    }
}
