package jakarta.persistence;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A stand-in for JPA's {@code @Table} (same name, same attributes) so the agent's tests can show
 * that {@code @Fenced} entities take their table from it without the agent depending on JPA.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Table {
    String name() default "";

    String schema() default "";
}
