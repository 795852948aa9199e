package dev.fencing.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Pays orders. With fencing-spring-boot-starter on the class path, {@code fencing.tables=orders}
 * in application.properties and {@code @FencedLock} on {@link PaymentService#pay}, a worker whose
 * lock expired while it was paused can no longer overwrite the order: the database rejects its
 * write and the caller gets a {@link dev.fencing.spring.StaleFenceDataAccessException}.
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
