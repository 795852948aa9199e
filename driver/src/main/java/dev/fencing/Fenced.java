package dev.fencing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an entity class whose table is fenced. The table is {@link #value()} when given, else
 * the name of the class's {@code jakarta.persistence.Table} or {@code javax.persistence.Table}
 * annotation. Without the agent, register such classes through
 * {@link FencingConfig.Builder#fencedEntity(Class)}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Fenced {

    /** The fenced table, optionally schema-qualified; empty to take it from the JPA annotation. */
    String value() default "";
}
