package dev.fencing.spring.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class TestApplication {

    /** Used from a @FencedLock resource expression. */
    public static final class ResourceNames {
        public String forOrder(long id) {
            return "order:" + id;
        }
    }

    @Bean
    ResourceNames resourceNames() {
        return new ResourceNames();
    }
}
