package dev.fencing.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.annotation.Annotation;
import java.util.Optional;

/** What the extensions of this package share: where their state lives, how they read class annotations. */
final class ExtensionSupport {

    private ExtensionSupport() {
    }

    /**
     * The store, in {@code namespace}, of the outermost test class around {@code context}: one
     * per top-level class, shared by its {@code @Nested} classes, closed after the class.
     */
    static ExtensionContext.Store classStore(ExtensionContext context, ExtensionContext.Namespace namespace) {
        ExtensionContext owner = context;
        while (owner.getParent().flatMap(ExtensionContext::getTestClass).isPresent()) {
            owner = owner.getParent().orElseThrow();
        }
        return owner.getStore(namespace);
    }

    /**
     * The nearest {@code annotation} on the test class or, for a {@code @Nested} class, on a
     * class it runs inside (found through the running contexts, so that a nested class
     * inherited from an abstract class sees the annotation of the concrete class).
     */
    static <A extends Annotation> Optional<A> onClass(ExtensionContext context, Class<A> annotation) {
        for (ExtensionContext current = context; current != null; current = current.getParent().orElse(null)) {
            Optional<A> found = current.getTestClass().flatMap(type -> AnnotationSupport.findAnnotation(type, annotation));
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }
}
