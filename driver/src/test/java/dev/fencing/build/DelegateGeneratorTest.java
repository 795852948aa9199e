package dev.fencing.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.stream.Collectors;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generator forwards only harmless methods, and a wrapper that leaves a dangerous one to it
 * does not compile: the deny-by-default rule the hand-written wrappers rely on.
 */
class DelegateGeneratorTest {

    private static final List<String> INTERFACES = List.of(
            "java.sql.ResultSet", "java.sql.Statement", "java.sql.Connection", "java.sql.DatabaseMetaData",
            "java.sql.PreparedStatement");
    private static Elements api;

    @BeforeAll
    static void readTheJava17Api() {
        api = DelegateGenerator.java17Api(INTERFACES);
    }

    @Test
    void forwardsPlainGettersAndColumnSetters() {
        assertThat(forwarded("java.sql.ResultSet")).contains(
                "getString(int)", "getLong(java.lang.String)", "updateInt(int,int)", "wasNull()", "close()");
        assertThat(forwarded("java.sql.Statement")).contains("getMaxRows()", "setQueryTimeout(int)");
        assertThat(forwarded("java.sql.DatabaseMetaData")).contains("getDatabaseProductName()");
    }

    @Test
    void leavesEveryDangerousMethodToTheWrapper() {
        assertThat(forwarded("java.sql.ResultSet")).doesNotContain(
                "insertRow()", "updateRow()", "deleteRow()", "getStatement()", "getObject(int)",
                "getArray(int)", "updateObject(int,java.lang.Object)", "updateArray(int,java.sql.Array)",
                "updateObject(int,java.lang.Object,java.sql.SQLType)", "unwrap(java.lang.Class<T>)",
                "isWrapperFor(java.lang.Class<?>)");
        assertThat(forwarded("java.sql.Statement")).doesNotContain(
                "executeUpdate(java.lang.String)", "execute(java.lang.String,int)", "addBatch(java.lang.String)",
                "executeBatch()", "executeLargeBatch()", "setCursorName(java.lang.String)", "getConnection()",
                "getGeneratedKeys()", "close()");
        assertThat(forwarded("java.sql.PreparedStatement")).doesNotContain(
                "executeUpdate()", "setObject(int,java.lang.Object)", "setString(int,java.lang.String)");
        assertThat(forwarded("java.sql.Connection")).doesNotContain(
                "prepareStatement(java.lang.String)", "createStatement()", "nativeSQL(java.lang.String)",
                "commit()", "rollback()", "rollback(java.sql.Savepoint)", "setAutoCommit(boolean)",
                "setSavepoint()", "setSchema(java.lang.String)", "getMetaData()", "beginRequest()");
        assertThat(forwarded("java.sql.DatabaseMetaData")).doesNotContain(
                "getConnection()", "getTables(java.lang.String,java.lang.String,java.lang.String,java.lang.String[])");
    }

    @Test
    void aWrapperThatImplementsEveryRefusedMethodCompiles(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.ResultSet", null, out)).isEmpty();
    }

    @Test
    void aWrapperThatLeavesARowWriteToTheGeneratorDoesNotCompile(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.ResultSet", "insertRow()", out))
                .anySatisfy(error -> assertThat(error).contains("insertRow()"));
    }

    @Test
    void aDangerousDefaultMethodIsReDeclaredAbstractSoItCannotBeForgotten(@TempDir Path out) throws IOException {
        // ResultSet.updateObject(int, Object, SQLType) has a default body in java.sql; inherited, it would
        // let one of our wrappers reach the driver unconverted.
        assertThat(compileWrapperOmitting("java.sql.ResultSet", "updateObject(int,java.lang.Object,java.sql.SQLType)", out))
                .anySatisfy(error -> assertThat(error).contains("updateObject(int,java.lang.Object,java.sql.SQLType)"));
    }

    @Test
    void aStatementWrapperThatLeavesExecuteToTheGeneratorDoesNotCompile(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.Statement", "executeUpdate(java.lang.String)", out))
                .anySatisfy(error -> assertThat(error).contains("executeUpdate(java.lang.String)"));
    }

    private static List<String> forwarded(String iface) {
        TypeElement type = api.getTypeElement(iface);
        return DelegateGenerator.methodsOf(api, type).stream()
                .filter(method -> DelegateGenerator.handling(type, method) == null)
                .map(DelegateGeneratorTest::signature)
                .collect(Collectors.toList());
    }

    private static String signature(ExecutableElement method) {
        return method.getSimpleName() + method.getParameters().stream()
                .map(p -> p.asType().toString()).collect(Collectors.joining(",", "(", ")"));
    }

    /**
     * Generates the delegate of {@code iface} and a subclass that implements every method the
     * generator refused, except {@code omitted}; returns the compiler's errors.
     */
    private static List<String> compileWrapperOmitting(String iface, String omitted, Path out) throws IOException {
        TypeElement type = api.getTypeElement(iface);
        String generated = DelegateGenerator.generate(api, type, "probe.Generated");
        StringBuilder wrapper = new StringBuilder("package probe;\n@SuppressWarnings(\"unchecked\")\n"
                + "final class Wrapper extends Generated {\n    Wrapper(" + iface + " d) { super(d); }\n");
        for (ExecutableElement method : DelegateGenerator.methodsOf(api, type)) {
            if (DelegateGenerator.handling(type, method) == null || signature(method).equals(omitted)) {
                continue;
            }
            wrapper.append("    @Override public ");
            if (!method.getTypeParameters().isEmpty()) {
                wrapper.append(method.getTypeParameters().stream().map(Object::toString)
                        .collect(Collectors.joining(", ", "<", "> ")));
            }
            wrapper.append(method.getReturnType()).append(' ').append(method.getSimpleName()).append('(');
            StringJoiner parameters = new StringJoiner(", ");
            int i = 0;
            for (VariableElement parameter : method.getParameters()) {
                parameters.add(parameter.asType() + " p" + i++);
            }
            wrapper.append(parameters).append(") { ");
            TypeKind returned = method.getReturnType().getKind();
            if (returned == TypeKind.BOOLEAN) {
                wrapper.append("return false; ");
            } else if (returned.isPrimitive()) {
                wrapper.append("return 0; ");
            } else if (returned != TypeKind.VOID) {
                wrapper.append("return null; ");
            }
            wrapper.append("}\n");
        }
        wrapper.append("}\n");

        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Files.createDirectories(out);
        boolean compiled = ToolProvider.getSystemJavaCompiler().getTask(null, null, diagnostics,
                List.of("--release", "17", "-proc:none", "-d", out.toString()), null,
                List.of(source("probe/Generated.java", generated), source("probe/Wrapper.java", wrapper.toString())))
                .call();
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
            if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                errors.add(diagnostic.getMessage(null));
            }
        }
        assertThat(compiled).as("compiled iff no errors: %s", errors).isEqualTo(errors.isEmpty());
        return errors;
    }

    private static JavaFileObject source(String path, String text) {
        return new SimpleJavaFileObject(URI.create("string:///" + path), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return text;
            }
        };
    }
}
