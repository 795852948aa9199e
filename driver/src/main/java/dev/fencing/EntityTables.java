package dev.fencing;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;

/** The tables of entity classes, for {@link FencingConfig.Builder#fencedEntity(Class)}. */
final class EntityTables {

    private EntityTables() {
    }

    /**
     * The table of an entity class annotated with {@link Fenced}: the annotation's value, else the
     * name (and schema) of its {@code jakarta.persistence.Table} / {@code javax.persistence.Table},
     * read by name so that neither API is needed on the class path.
     */
    static String tableOf(Class<?> entity) {
        Fenced fenced = entity.getAnnotation(Fenced.class);
        if (fenced == null) {
            throw new IllegalArgumentException(entity.getName() + " is not annotated with @" + Fenced.class.getName());
        }
        if (!fenced.value().isBlank()) {
            return fenced.value();
        }
        for (Annotation annotation : entity.getAnnotations()) {
            String type = annotation.annotationType().getName();
            if (type.equals("jakarta.persistence.Table") || type.equals("javax.persistence.Table")) {
                String name = annotationString(annotation, "name");
                String schema = annotationString(annotation, "schema");
                if (!name.isBlank()) {
                    return schema.isBlank() ? name : schema + "." + name;
                }
            }
        }
        throw new IllegalArgumentException(entity.getName() + " is @Fenced but names no table: give @Fenced(\"table\") "
                + "or a @Table(name = ...) annotation");
    }

    private static String annotationString(Annotation annotation, String attribute) {
        try {
            Method method = annotation.annotationType().getMethod(attribute);
            Object value = method.invoke(annotation);
            return value == null ? "" : value.toString();
        } catch (ReflectiveOperationException e) {
            return "";
        }
    }
}
