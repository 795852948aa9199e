package dev.fencing.agent;

import dev.fencing.Fenced;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;

import static org.assertj.core.api.Assertions.assertThat;

class FencedEntityScannerTest {

    @Fenced("orders")
    static final class Annotated {
    }

    static final class NotAnnotated {
    }

    private static byte[] classfile(Class<?> type) throws IOException {
        try (InputStream in = type.getResourceAsStream(type.getName().substring(type.getName().lastIndexOf('.') + 1)
                + ".class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void findsTheAnnotationsDescriptorInTheClassFile() throws IOException {
        assertThat(FencedEntityScanner.mentionsFenced(classfile(Annotated.class))).isTrue();
        assertThat(FencedEntityScanner.mentionsFenced(classfile(NotAnnotated.class))).isFalse();
        assertThat(FencedEntityScanner.mentionsFenced(new byte[0])).isFalse();
        assertThat(FencedEntityScanner.mentionsFenced(null)).isFalse();
    }
}
