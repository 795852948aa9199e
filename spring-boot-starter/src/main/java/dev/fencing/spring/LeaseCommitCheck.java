package dev.fencing.spring;

import java.util.function.Supplier;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The before-commit check of {@link FencedLock}: registered as a listener on every transaction
 * manager bean, it checks, just before a transaction begun under a {@code @FencedLock} lease
 * commits, that every lease of the thread is still held, and otherwise fails the commit (the
 * transaction rolls back) with {@link FencedLockLostException}. The check runs as a transaction
 * synchronization's {@code beforeCommit} (whose exceptions roll back, as Spring documents), and
 * again as the listener's own {@code beforeCommit} right before the database commit, where
 * synchronization is switched off.
 *
 * <p>A {@link PlatformTransactionManager} that takes no listeners is refused at start-up: a
 * transaction it ran could commit after the lease was lost.
 */
final class LeaseCommitCheck implements TransactionExecutionListener, BeanPostProcessor {

    private final Supplier<LockObserver> observer;

    LeaseCommitCheck(Supplier<LockObserver> observer) {
        this.observer = observer;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager manager) {
            if (!manager.getTransactionExecutionListeners().contains(this)) {
                manager.addListener(this);
            }
        } else if (bean instanceof PlatformTransactionManager) {
            throw new IllegalStateException("transaction manager '" + beanName + "' (" + bean.getClass().getName()
                    + ") does not implement ConfigurableTransactionManager, so @FencedLock cannot check its leases "
                    + "before a commit; use a transaction manager derived from AbstractPlatformTransactionManager");
        }
        return bean;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure == null && HeldLeases.any() && TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    HeldLeases.requireAllHeld(observer.get());
                }
            });
        }
    }

    @Override
    public void beforeCommit(TransactionExecution transaction) {
        HeldLeases.requireAllHeld(observer.get());
    }
}
