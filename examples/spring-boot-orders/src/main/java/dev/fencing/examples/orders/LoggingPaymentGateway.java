package dev.fencing.examples.orders;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Stands in for a real payment provider. */
@Component
class LoggingPaymentGateway implements PaymentGateway {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingPaymentGateway.class);

    @Override
    public void charge(long orderId, long amount) {
        LOG.info("charged {} for order {}", amount, orderId);
    }

    @Override
    public void releaseHold(long orderId) {
        LOG.info("released the hold for order {}", orderId);
    }
}
