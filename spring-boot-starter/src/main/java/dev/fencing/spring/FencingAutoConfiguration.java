package dev.fencing.spring;

import dev.fencing.events.FencingListener;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.RedisFencedLocks;

import java.sql.SQLException;
import javax.sql.DataSource;

import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * fencing-jdbc for a Spring Boot application:
 * <ul>
 *   <li>every {@link DataSource} bean wrapped in a {@link dev.fencing.jdbc.FencingDataSource}
 *       configured from {@code fencing.*} (off with {@code fencing.enabled=false});</li>
 *   <li>a {@link FencedLocks} bean: Redis from {@code spring.data.redis.*}, else the primary data source;</li>
 *   <li>{@link FencedLock} methods, ordered outside {@code @Transactional}, with a before-commit lease check;</li>
 *   <li>fencing's SQLStates translated into {@link FencingDataAccessException}s by JdbcTemplate and JPA;</li>
 *   <li>Flyway and Liquibase run on the unwrapped data source (see {@link FencingMigrationConfiguration});</li>
 *   <li>a health indicator and Micrometer meters (see {@link FencingObservabilityConfiguration}).</li>
 * </ul>
 */
@AutoConfiguration
@Import(FencingAutoConfiguration.AutoProxyRegistrar.class)
public class FencingAutoConfiguration {

    /** Before the transaction advisor (Ordered.LOWEST_PRECEDENCE by default), so the lock is outside the transaction. */
    static final int ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    /** First of all: on a Spring Boot line this build is not for, nothing below would apply as documented. */
    @Bean
    static BootLineCheck fencingBootLineCheck() {
        return new BootLineCheck();
    }

    @Bean
    @ConditionalOnProperty(name = FencingKeys.ENABLED, havingValue = "true", matchIfMissing = true)
    static FencedDataSources fencedDataSources(Environment environment) {
        return new FencedDataSources(environment);
    }

    /** Every {@link FencingListener} bean (the Micrometer binder among them) hears every wrapped data source. */
    @Bean
    SmartInitializingSingleton fencingListenerRegistration(ObjectProvider<FencedDataSources> fencedDataSources,
                                                           ObjectProvider<FencingListener> listeners) {
        return () -> fencedDataSources.ifAvailable(fenced -> listeners.orderedStream().forEach(fenced::addListener));
    }

    @Bean
    FencingStartupReport fencingStartupReport(ObjectProvider<FencedDataSources> fencedDataSources,
                                              ObjectProvider<FencedLocks> locks) {
        return new FencingStartupReport(fencedDataSources, locks);
    }

    @Bean
    @ConditionalOnClass(name = "org.springframework.jdbc.core.JdbcTemplate")
    static FencingTranslationPostProcessor fencingTranslationPostProcessor() {
        return new FencingTranslationPostProcessor();
    }

    @Bean
    static LeaseCommitCheck fencedLockCommitCheck(ObjectProvider<LockObserver> observer) {
        return new LeaseCommitCheck(() -> observer.getIfAvailable(() -> LockObserver.NONE));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor fencedLockAdvisor(ObjectProvider<FencedLocks> locks, ObjectProvider<LockObserver> observer,
                                     ConfigurableListableBeanFactory beanFactory, Environment environment) {
        FencingSettings settings = FencingSettings.of(environment);
        FencedLockInterceptor interceptor = new FencedLockInterceptor(locks::getObject,
                () -> observer.getIfAvailable(() -> LockObserver.NONE), beanFactory,
                settings.defaultTtl(), settings.defaultMaxWait());
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, FencedLock.class, true), interceptor);
        advisor.setOrder(ADVISOR_ORDER);
        return advisor;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(FencedLocks.class)
    FencedLocks fencedLocks(Environment environment, ObjectProvider<DataSource> dataSources,
                            ObjectProvider<FencedDataSources> fencedDataSources) {
        FencingSettings settings = FencingSettings.of(environment);
        FencingSettings.Store store = settings.store();
        boolean lettuce = ClassUtils.isPresent("io.lettuce.core.RedisClient", getClass().getClassLoader());
        if (store == FencingSettings.Store.AUTO) {
            boolean springDataRedis = ClassUtils.isPresent("org.springframework.data.redis.connection.RedisConnectionFactory",
                    getClass().getClassLoader());
            store = springDataRedis && lettuce ? FencingSettings.Store.REDIS : FencingSettings.Store.JDBC;
        }
        if (store == FencingSettings.Store.REDIS) {
            if (!lettuce) {
                throw new FencingConfigurationException(FencingKeys.LOCK_STORE + "=redis needs Lettuce, which is not"
                        + " on the class path", "Add io.lettuce:lettuce-core (spring-boot-starter-data-redis brings it), or set "
                        + FencingKeys.LOCK_STORE + "=jdbc");
            }
            RedisLocation location = settings.redisLocation();
            RedisFencedLocks.Builder builder = RedisFencedLocks.builder(location.uri())
                    .keyPrefix(settings.redisKeyPrefix())
                    .watchdog(settings.watchdog());
            location.timeout().ifPresent(builder::operationTimeout);
            if (settings.redisWaitForReplicas() > 0) {
                builder.waitForReplicas(settings.redisWaitForReplicas(), settings.redisReplicaTimeout());
            }
            return builder.build();
        }
        DataSource primary = dataSources.getIfUnique();
        if (primary == null) {
            throw new FencingConfigurationException("the jdbc lock store needs one primary DataSource bean; found none,"
                    + " or several without @Primary", "Mark one DataSource bean @Primary, set " + FencingKeys.LOCK_STORE
                    + "=redis, or define a FencedLocks bean of your own");
        }
        FencedDataSources fenced = fencedDataSources.getIfAvailable();
        DataSource raw = fenced == null ? primary : fenced.unwrapped(primary);
        JdbcFencedLocks locks = JdbcFencedLocks.builder(raw).tableName(settings.jdbcTable())
                .watchdog(settings.watchdog()).build();
        if (settings.jdbcCreateTable()) {
            try {
                locks.createTable();
            } catch (SQLException e) {
                locks.close();
                throw new FencingConfigurationException("cannot create the lock table " + settings.jdbcTable() + ": "
                        + e.getMessage(), "Grant the application's user the right to create it, or set "
                        + FencingKeys.LOCK_JDBC_CREATE_TABLE + "=false and create it yourself", e);
            }
        }
        return locks;
    }

    /**
     * Makes sure an auto-proxy creator exists for the infrastructure advisor above (the one
     * {@code @EnableTransactionManagement} uses, or a stronger one already registered).
     */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
