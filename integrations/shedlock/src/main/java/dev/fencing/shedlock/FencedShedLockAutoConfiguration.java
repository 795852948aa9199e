package dev.fencing.shedlock;

import dev.fencing.lock.FencedLocks;
import dev.fencing.spring.FencingAutoConfiguration;

import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With the fencing starter: ShedLock's {@link LockProvider} on the starter's {@link FencedLocks}
 * (Redis from {@code spring.data.redis.*}, else the primary data source), so that
 * {@code @SchedulerLock} tasks run with their lease's fence. An application that defines its own
 * {@code LockProvider} keeps it.
 */
@AutoConfiguration(after = FencingAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, FencingAutoConfiguration.class})
public class FencedShedLockAutoConfiguration {

    @Bean
    @ConditionalOnBean(FencedLocks.class)
    @ConditionalOnMissingBean(LockProvider.class)
    FencedLockProvider fencedLockProvider(FencedLocks locks) {
        return new FencedLockProvider(locks);
    }
}
