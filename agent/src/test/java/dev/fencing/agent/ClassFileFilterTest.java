package dev.fencing.agent;

import dev.fencing.Fenced;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

class ClassFileFilterTest {

    @Fenced("orders")
    static final class Entity {
    }

    static final class Source {
        Connection getConnection() throws SQLException {
            return DriverManager.getConnection("jdbc:h2:mem:");
        }
    }

    static final class Caller {
        void run() throws SQLException {
            DriverManager.getConnection("jdbc:h2:mem:").close();
        }
    }

    static final class Builder {
        Object build() {
            return this;
        }
    }

    static final class Listener implements javax.sql.ConnectionEventListener {
        @Override
        public void connectionClosed(javax.sql.ConnectionEvent event) {
        }

        @Override
        public void connectionErrorOccurred(javax.sql.ConnectionEvent event) {
        }
    }

    static final class Reconnect {
        void reconnect() {
        }
    }

    private static byte[] classfile(Class<?> type) throws IOException {
        String name = type.getName();
        try (InputStream in = type.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void findsExactlyTheConstantsThatMatter() throws IOException {
        assertThat(ClassFileFilter.scan(classfile(Entity.class))).isEqualTo(ClassFileFilter.FENCED);
        assertThat(ClassFileFilter.scan(classfile(Source.class))).isEqualTo(ClassFileFilter.GET_CONNECTION);
        assertThat(ClassFileFilter.scan(classfile(Caller.class))).isZero(); // calls getConnection, declares none
        assertThat(ClassFileFilter.scan(classfile(Reconnect.class))).isZero(); // "reconnect" is not "connect"
        assertThat(ClassFileFilter.scan(classfile(String.class))).isZero();
        assertThat(ClassFileFilter.scan(classfile(org.h2.Driver.class)) & ClassFileFilter.CONNECT).isNotZero();
        // pgjdbc's XA data source declares getXAConnection, not getConnection (its base class does)
        assertThat(ClassFileFilter.scan(classfile(org.postgresql.xa.PGXADataSource.class))).isEqualTo(ClassFileFilter.POOLED);
        assertThat(ClassFileFilter.scan(classfile(example.app.MatrixSample.ConnectionBuilderSample.class)))
                .isEqualTo(ClassFileFilter.BUILDER);
        assertThat(ClassFileFilter.scan(classfile(Builder.class))).isZero(); // a build() of no JDBC builder
        assertThat(ClassFileFilter.scan(classfile(Listener.class))).isEqualTo(ClassFileFilter.POOLED);
    }

    @Test
    void nestMembersAreReadFromTheClassFile() throws IOException {
        byte[] fence;
        try (InputStream in = dev.fencing.Fence.class.getResourceAsStream("Fence.class")) {
            fence = in.readAllBytes();
        }
        assertThat(ClassFileFilter.nestMembers(fence)).contains("dev/fencing/Fence$Frame", "dev/fencing/Fence$Scope")
                .allMatch(name -> name.startsWith("dev/fencing/Fence$"));
        assertThat(ClassFileFilter.nestMembers(classfile(Reconnect.class))).isEmpty();
    }

    @Test
    void whatCannotBeReadIsLookedAtFurther() {
        assertThat(ClassFileFilter.scan(new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0, 0, 61, 0, 3, 99}))
                .isEqualTo(ClassFileFilter.CONNECT | ClassFileFilter.GET_CONNECTION | ClassFileFilter.FENCED
                        | ClassFileFilter.POOLED | ClassFileFilter.BUILDER);
        assertThat(ClassFileFilter.scan(null)).isZero();
    }
}
