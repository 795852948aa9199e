package dev.fencing.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The extension behind {@link TestDatabase}: resolves {@code DataSource} parameters to the
 * test class's scratch area, made on first use and kept in this extension's namespace of the
 * class's store, whose closing (after the class) drops it.
 */
final class DatabaseExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DatabaseExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == DataSource.class && kind(parameter, context).isPresent();
    }

    @Override
    public DataSource resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestDatabase.Kind kind = kind(parameter, context).orElseThrow();
        StoredResource<?> scratch = ExtensionSupport.classStore(context, NAMESPACE)
                .getOrComputeIfAbsent(kind, DatabaseExtension::create, StoredResource.class);
        return (DataSource) scratch.get();
    }

    private static StoredResource<DataSource> create(TestDatabase.Kind kind) {
        try {
            ScratchArea area = Scratch.create(kind);
            return new StoredResource<>(area.dataSource(), area::close);
        } catch (SQLException | RuntimeException e) {
            throw new ParameterResolutionException(e.getMessage(), e);
        }
    }

    /** The parameter's own {@code @TestDatabase}, else the nearest one on the class or an enclosing class. */
    private static Optional<TestDatabase.Kind> kind(ParameterContext parameter, ExtensionContext context) {
        Optional<TestDatabase> onParameter = parameter.findAnnotation(TestDatabase.class);
        if (onParameter.isPresent()) {
            return onParameter.map(TestDatabase::value);
        }
        return ExtensionSupport.onClass(context, TestDatabase.class).map(TestDatabase::value);
    }
}
