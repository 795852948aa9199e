package dev.fencing.spring;

import dev.fencing.Fence;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.expression.Expression;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a {@link FencedLock} method: acquire, enter the fence, call, leave the fence, release.
 * The before-commit check of transactions begun inside is {@link LeaseCommitCheck}'s.
 */
final class FencedLockInterceptor implements MethodInterceptor {

    /** One annotated method, parsed once. */
    private record Definition(FencedLock annotation, Method method, Expression resource, Duration ttl, Duration maxWait) {
    }

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext();
    /** A SpEL variable reference, not a bean reference (@name) or a method call on a variable's result. */
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_][A-Za-z0-9_]*)");

    private final Supplier<FencedLocks> locks;
    private final Supplier<LockObserver> observer;
    private final ConfigurableBeanFactory beanFactory;
    private final Duration defaultTtl;
    private final Duration defaultMaxWait;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<Method, Definition> definitions = new ConcurrentHashMap<>();

    FencedLockInterceptor(Supplier<FencedLocks> locks, Supplier<LockObserver> observer, ConfigurableBeanFactory beanFactory,
                          Duration defaultTtl, Duration defaultMaxWait) {
        this.locks = locks;
        this.observer = observer;
        this.beanFactory = beanFactory;
        this.defaultTtl = defaultTtl;
        this.defaultMaxWait = defaultMaxWait;
    }

    @Override
    @SuppressWarnings("try") // the fence scope is held, not used, for the duration of the call
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        Definition definition = definitions.computeIfAbsent(target == null ? method
                : AopUtils.getMostSpecificMethod(method, target.getClass()), this::define);
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("@FencedLock method " + describe(definition.method()) + " was called inside "
                    + "a transaction that is already active: that transaction began before the lock was held and would "
                    + "commit after it is released. Call it outside any transaction (put @Transactional on the "
                    + "@FencedLock method itself, or on a method it calls)");
        }
        String resource = resource(definition, invocation.getArguments(), target);
        Lease lease = acquire(resource, definition);
        LockObserver report = observer.get();
        HeldLeases.Held held = HeldLeases.push(lease);
        try {
            if (!lease.isHeld()) {
                // the acquire itself outlasted the TTL (a pause right after it): nothing may run
                held.lossReported = true;
                report.leaseLost();
                throw new FencedLockLostException(resource, lease.fence(),
                        "the lease on '" + resource + "' with fence " + lease.fence()
                                + " was lost before the method started; it did not run");
            }
            try (Fence.Scope scope = Fence.enter(lease.resource(), lease.fence())) {
                return invocation.proceed();
            }
        } finally {
            HeldLeases.pop(held);
            if (!lease.isHeld() && !held.lossReported) {
                report.leaseLost();
            }
            lease.close();
        }
    }

    private Lease acquire(String resource, Definition definition) {
        LockObserver report = observer.get();
        long start = System.nanoTime();
        try {
            Lease lease = locks.get().acquire(resource, definition.ttl(), definition.maxWait());
            report.acquired(System.nanoTime() - start);
            return lease;
        } catch (LockAcquisitionException e) {
            report.failed(e.reason(), System.nanoTime() - start);
            if (e.reason() == LockAcquisitionException.Reason.TIMED_OUT) {
                throw new FencedLockUnavailableException(resource, e);
            }
            throw new DataAccessResourceFailureException("@FencedLock on '" + resource + "' failed (" + e.reason() + "): "
                    + e.getMessage(), e);
        }
    }

    private String resource(Definition definition, Object[] arguments, Object target) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, definition.method(), arguments,
                parameterNames);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        Object value = definition.resource().getValue(context);
        String resource = value == null ? "" : value.toString();
        if (resource.isBlank()) {
            throw new IllegalArgumentException("@FencedLock(resource = \"" + definition.annotation().resource() + "\") on "
                    + describe(definition.method()) + " evaluated to blank text: a lock needs a resource name");
        }
        return resource;
    }

    private Definition define(Method method) {
        FencedLock annotation = AnnotatedElementUtils.findMergedAnnotation(method, FencedLock.class);
        if (annotation == null) {
            throw new IllegalStateException("no @FencedLock on " + describe(method));
        }
        if (annotation.resource().isBlank()) {
            throw new IllegalArgumentException("@FencedLock on " + describe(method) + " names no resource");
        }
        Expression resource;
        try {
            resource = PARSER.parseExpression(annotation.resource(), TEMPLATE);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("@FencedLock(resource = \"" + annotation.resource() + "\") on "
                    + describe(method) + " is not a valid template (text with #{...} expressions): " + e.getMessage(), e);
        }
        requireKnownVariables(method, annotation.resource());
        Duration ttl = duration(method, "ttl", annotation.ttl(), defaultTtl);
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("@FencedLock(ttl = \"" + annotation.ttl() + "\") on " + describe(method)
                    + " must be positive");
        }
        Duration wait = duration(method, "maxWait", annotation.maxWait(), defaultMaxWait);
        if (wait.isNegative()) {
            throw new IllegalArgumentException("@FencedLock(maxWait = \"" + annotation.maxWait() + "\") on "
                    + describe(method) + " must not be negative");
        }
        return new Definition(annotation, method, resource, ttl, wait);
    }

    /**
     * An unknown {@code #name} would evaluate to null and silently lock one resource for every
     * call (or, without -parameters, every name is unknown): refused when the method is first called.
     */
    private void requireKnownVariables(Method method, String template) {
        String[] names = parameterNames.getParameterNames(method);
        Matcher variables = VARIABLE.matcher(template);
        while (variables.find()) {
            String name = variables.group(1);
            if (name.equals("root") || name.equals("this") || name.matches("[pa]\\d+")) {
                continue;
            }
            if (names == null) {
                throw new IllegalStateException("@FencedLock(resource = \"" + template + "\") on " + describe(method)
                        + " uses #" + name + ", but the parameter names of the method are not known: compile with "
                        + "-parameters (Spring Boot's Maven and Gradle plugins do), or write #p0, #p1, ...");
            }
            if (!Arrays.asList(names).contains(name)) {
                throw new IllegalArgumentException("@FencedLock(resource = \"" + template + "\") on " + describe(method)
                        + " uses #" + name + ", which is not a parameter of the method; parameters: "
                        + String.join(", ", names));
            }
        }
    }

    private Duration duration(Method method, String attribute, String text, Duration fallback) {
        if (text.isBlank()) {
            return fallback;
        }
        String resolved = beanFactory.resolveEmbeddedValue(text);
        try {
            return DurationStyle.detectAndParse(resolved == null ? "" : resolved.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("@FencedLock(" + attribute + " = \"" + text + "\") on " + describe(method)
                    + " is not a duration; allowed: e.g. 30s, 500ms, PT1M, or a ${property} holding one", e);
        }
    }

    private static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
