package dev.fencing.spring;

import dev.fencing.Fence;

import java.lang.reflect.Method;
import java.util.Optional;

import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds a {@link FencedLock} method running on this thread without its lock: reached without the
 * Spring proxy (self-invocation, or an object that is not the bean), so the interceptor never ran.
 * Looked for only to explain a write refused for lack of a fence; never to decide anything.
 */
final class FencedLockBypass {

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private FencedLockBypass() {
    }

    /** The explanation to add to a refusal on this thread, or empty text. */
    static String explain() {
        if (Fence.current().isPresent()) {
            return "";
        }
        return lockedMethodOnStack().map(method -> " The @FencedLock method " + method.getDeclaringClass().getName()
                + "." + method.getName() + " is running on this thread without its lock: it was called from inside"
                + " its own class (self-invocation) or on an object that is not the Spring bean's proxy, so the lock"
                + " (and any @Transactional) was skipped. Call it through the bean (inject it, or move the method to"
                + " another bean).").orElse("");
    }

    private static Optional<Method> lockedMethodOnStack() {
        return WALKER.walk(frames -> frames
                .map(FencedLockBypass::method)
                .filter(method -> method != null && AnnotatedElementUtils.hasAnnotation(method, FencedLock.class))
                .findFirst());
    }

    private static Method method(StackWalker.StackFrame frame) {
        try {
            return frame.getDeclaringClass().getDeclaredMethod(frame.getMethodName(),
                    frame.getMethodType().parameterArray());
        } catch (NoSuchMethodException | RuntimeException | LinkageError notAMethod) {
            return null; // a constructor, an initializer, or a class that cannot be inspected
        }
    }
}
