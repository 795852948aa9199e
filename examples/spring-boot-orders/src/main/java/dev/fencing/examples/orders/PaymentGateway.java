package dev.fencing.examples.orders;

/**
 * Charges the customer. The call leaves the process and may take long: exactly where a worker can
 * be paused past its lock's TTL (a GC pause, a slow network) while another worker takes over.
 */
public interface PaymentGateway {

    void charge(long orderId, long amount);

    /** Releases the hold on the customer's card for an order that is cancelled; leaves the process too. */
    default void releaseHold(long orderId) {
    }
}
