package dev.fencing.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;

/**
 * The extension behind {@link TestRedis}: claims a logical database for the test class on first
 * use and keeps it (and any Lettuce client made for it) in this extension's namespace of the
 * class's store, whose closing (after the class) shuts the client down and flushes the database.
 */
final class RedisExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";

    private enum Key { DATABASE, CLIENT }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == String.class) {
            return parameter.isAnnotated(TestRedis.class);
        }
        return type.getName().equals(LETTUCE_CLIENT) && (parameter.isAnnotated(TestRedis.class) || ExtensionSupport.onClass(context, TestRedis.class).isPresent());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = ExtensionSupport.classStore(context, NAMESPACE);
        String uri = (String) store.getOrComputeIfAbsent(Key.DATABASE, key -> claim(), StoredResource.class).get();
        if (parameter.getParameter().getType() == String.class) {
            return uri;
        }
        return store.getOrComputeIfAbsent(Key.CLIENT, key -> LettuceClients.create(uri), StoredResource.class).get();
    }

    private static StoredResource<String> claim() {
        String uri = Env.get("FENCING_REDIS_URI", "redis://127.0.0.1:6379");
        try {
            return RedisDatabaseClaim.claim(uri);
        } catch (IOException | RuntimeException e) {
            throw new ParameterResolutionException("@TestRedis cannot claim a logical database on " + Env.redact(uri)
                    + " (set FENCING_REDIS_URI to point elsewhere): " + e.getMessage(), e);
        }
    }
}
