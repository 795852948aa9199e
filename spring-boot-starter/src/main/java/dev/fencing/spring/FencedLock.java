package dev.fencing.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a fenced lock on {@link #resource()}, with the lease's
 * fence in scope ({@link dev.fencing.Fence#enter(String, long)}), so every write it makes to a
 * fenced table carries the fence.
 *
 * <pre>{@code
 * @FencedLock(resource = "order:#{#orderId}", ttl = "30s", maxWait = "5s")
 * @Transactional
 * public void pay(long orderId, long amount) { ... }
 * }</pre>
 *
 * <p>Order with {@code @Transactional}: the lock is taken <em>outside</em> the transaction. The
 * transaction begins after the lock is held and commits before it is released; just before the
 * commit, every lease the thread holds through this annotation is checked, and a lease known to
 * be lost ({@link dev.fencing.lock.Lease#isHeld()} is false: its TTL ran out, or a renewal found
 * it in other hands) fails the commit with {@link FencedLockLostException}, rolling the
 * transaction back. A method called inside a transaction that is already active is refused
 * ({@link IllegalStateException}): that transaction began before the lock was held and would
 * commit after it is released.
 *
 * <p>When the lock stays held by someone else for the whole {@link #maxWait()}, the method is not
 * run and {@link FencedLockUnavailableException} is thrown; when the lock store fails,
 * {@link org.springframework.dao.DataAccessResourceFailureException}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface FencedLock {

    /**
     * The locked resource: literal text with SpEL expressions in {@code #{...}}, evaluated against
     * the method's arguments ({@code #name}, or {@code #p0}/{@code #a0} by position) and the
     * application's beans ({@code @beanName}). Example: {@code "order:#{#orderId}"}. It must
     * evaluate to non-blank text.
     */
    String resource();

    /**
     * How long the lease lasts, as a duration ({@code "30s"}, {@code "500ms"}, {@code "PT1M"}) or
     * a {@code ${property}} placeholder; empty means {@code fencing.lock.default-ttl} (30 s).
     */
    String ttl() default "";

    /**
     * How long to wait for the lock when someone else holds it, in the same forms as
     * {@link #ttl()}; {@code "0s"} makes one attempt; empty means
     * {@code fencing.lock.default-max-wait} (5 s).
     */
    String maxWait() default "";
}
