package dev.fencing.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
            "java.sql.PreparedStatement", "java.sql.CallableStatement", "java.sql.ParameterMetaData");
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
        assertThat(forwarded("java.sql.Connection")).contains(
                "getAutoCommit()", "getTransactionIsolation()", "getWarnings()", "setHoldability(int)");
        assertThat(forwarded("java.sql.CallableStatement")).contains(
                "wasNull()", "getString(java.lang.String)", "getLong(int)", "registerOutParameter(int,int)");
        assertThat(forwarded("java.sql.ParameterMetaData")).contains("getParameterType(int)");
    }

    @Test
    void aParameterIndexAlwaysGoesThroughTheHook() {
        // Forwarded as it is, an index would reach the driver's numbering, fence slots included.
        for (String iface : List.of("java.sql.PreparedStatement", "java.sql.CallableStatement", "java.sql.ParameterMetaData")) {
            TypeElement type = api.getTypeElement(iface);
            for (ExecutableElement method : DelegateGenerator.methodsOf(api, type)) {
                String owner = method.getEnclosingElement().toString();
                if (DelegateGenerator.handling(type, method) != null || method.getParameters().isEmpty()
                        || method.getParameters().get(0).asType().getKind() != TypeKind.INT
                        || owner.equals("java.sql.Statement")) {
                    continue;
                }
                assertThat(DelegateGenerator.route(method)).as("%s.%s", iface, signature(method))
                        .isIn(DelegateGenerator.Route.PARAMETER_INDEX, DelegateGenerator.Route.KEPT_SETTER);
            }
        }
        assertThat(route("java.sql.PreparedStatement", "setString(int,java.lang.String)"))
                .isEqualTo(DelegateGenerator.Route.KEPT_SETTER);
        assertThat(route("java.sql.CallableStatement", "setString(java.lang.String,java.lang.String)"))
                .isEqualTo(DelegateGenerator.Route.PARAMETER_NAME);
        assertThat(route("java.sql.CallableStatement", "registerOutParameter(java.lang.String,int)"))
                .isEqualTo(DelegateGenerator.Route.PARAMETER_NAME);
        assertThat(route("java.sql.CallableStatement", "getString(java.lang.String)"))
                .isEqualTo(DelegateGenerator.Route.PLAIN);
    }

    @Test
    void leavesEveryDangerousMethodToTheWrapper() {
        assertThat(forwarded("java.sql.ResultSet")).doesNotContain(
                "insertRow()", "updateRow()", "deleteRow()", "getStatement()", "getObject(int)",
                "getObject(int,java.lang.Class<T>)", "unwrap(java.lang.Class<T>)", "isWrapperFor(java.lang.Class<?>)");
        assertThat(forwarded("java.sql.Statement")).doesNotContain(
                "executeUpdate(java.lang.String)", "execute(java.lang.String,int)", "addBatch(java.lang.String)",
                "executeBatch()", "executeLargeBatch()", "getConnection()", "getGeneratedKeys()", "close()");
        List<String> fromStatement = List.of(
                "executeUpdate(java.lang.String)", "execute(java.lang.String,int)", "addBatch(java.lang.String)",
                "executeBatch()", "getConnection()", "getResultSet()", "close()");
        List<String> fromPreparedStatement = List.of(
                "executeUpdate()", "executeQuery()", "execute()", "addBatch()", "executeLargeUpdate()",
                "clearParameters()", "getParameterMetaData()");
        assertThat(forwarded("java.sql.PreparedStatement")).doesNotContainAnyElementsOf(fromStatement)
                .doesNotContainAnyElementsOf(fromPreparedStatement);
        assertThat(forwarded("java.sql.CallableStatement")).doesNotContainAnyElementsOf(fromStatement)
                .doesNotContainAnyElementsOf(fromPreparedStatement).doesNotContain(
                        "getObject(int)", "getObject(java.lang.String)", "getObject(int,java.lang.Class<T>)",
                        "unwrap(java.lang.Class<T>)");
        assertThat(forwarded("java.sql.Connection")).doesNotContain(
                "prepareStatement(java.lang.String)", "createStatement()", "nativeSQL(java.lang.String)",
                "commit()", "rollback()", "rollback(java.sql.Savepoint)", "setAutoCommit(boolean)",
                "setSavepoint()", "setSchema(java.lang.String)", "getMetaData()", "beginRequest()",
                "endRequest()", "setTransactionIsolation(int)", "setCatalog(java.lang.String)",
                "createArrayOf(java.lang.String,java.lang.Object[])", "setClientInfo(java.util.Properties)",
                "abort(java.util.concurrent.Executor)", "close()");
        assertThat(forwarded("java.sql.DatabaseMetaData")).doesNotContain(
                "getConnection()", "getTables(java.lang.String,java.lang.String,java.lang.String,java.lang.String[])");
        assertThat(forwarded("java.sql.ParameterMetaData")).doesNotContain(
                "unwrap(java.lang.Class<T>)", "isWrapperFor(java.lang.Class<?>)");
    }

    @Test
    void forwardsValueObjectsAsTheyAreAndConvertsWhatMayBeOurWrapper() {
        assertThat(forwarded("java.sql.ResultSet")).contains("getSQLXML(java.lang.String)", "getRowId(int)",
                "getMetaData()", "updateClob(int,java.sql.Clob)", "updateObject(int,java.lang.Object)",
                "updateArray(int,java.sql.Array)", "updateObject(int,java.lang.Object,java.sql.SQLType)");
        assertThat(forwarded("java.sql.PreparedStatement")).contains("getMetaData()", "setObject(int,java.lang.Object)",
                "setArray(int,java.sql.Array)", "setBlob(int,java.sql.Blob)", "setSQLXML(int,java.sql.SQLXML)");
        assertThat(forwarded("java.sql.CallableStatement")).contains("getSQLXML(java.lang.String)", "getRef(int)",
                "setObject(java.lang.String,java.lang.Object)", "registerOutParameter(int,java.sql.SQLType)");
        assertThat(forwarded("java.sql.Connection")).contains("createSQLXML()", "createBlob()", "createNClob()");
        // arrays and LOBs are handed out through toApplication (wrapped, or read-only)
        assertThat(forwarded("java.sql.ResultSet")).contains("getArray(int)", "getBlob(int)", "getClob(java.lang.String)",
                "getNClob(int)");
        assertThat(forwarded("java.sql.CallableStatement")).contains("getArray(java.lang.String)", "getBlob(int)");
        assertThat(route("java.sql.PreparedStatement", "setObject(int,java.lang.Object)"))
                .isEqualTo(DelegateGenerator.Route.KEPT_SETTER);
        assertThat(route("java.sql.CallableStatement", "setObject(java.lang.String,java.lang.Object)"))
                .isEqualTo(DelegateGenerator.Route.PARAMETER_NAME);
    }

    @Test
    void everyReviewedForwardIsARealMethodThatTheRulesAloneWouldRefuse() {
        // an entry is a deliberate exception: a typo would forward nothing, a stale one would hide nothing
        for (Map.Entry<String, String> reviewed : DelegateGenerator.REVIEWED_FORWARDS.entrySet()) {
            String key = reviewed.getKey();
            String qualifiedName = key.substring(0, key.indexOf('('));
            String iface = qualifiedName.substring(0, qualifiedName.lastIndexOf('.'));
            TypeElement type = api.getTypeElement(iface);
            List<ExecutableElement> methods = DelegateGenerator.methodsOf(api, type).stream()
                    .filter(method -> DelegateGenerator.reviewKey(method).equals(key))
                    .collect(Collectors.toList());
            assertThat(methods).as(key).hasSize(1);
            assertThat(DelegateGenerator.dangerOf(type, methods.get(0))).as(key).isNotNull();
            assertThat(reviewed.getValue()).as(key).isNotBlank();
        }
        assertThat(forwarded("java.sql.Connection")).contains("setReadOnly(boolean)",
                "getClientInfo(java.lang.String)", "setNetworkTimeout(java.util.concurrent.Executor,int)");
        assertThat(forwarded("java.sql.Statement")).contains("setCursorName(java.lang.String)",
                "enquoteLiteral(java.lang.String)");
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
        // Connection.beginRequest() and Statement.executeLargeUpdate(String) have default bodies in
        // java.sql; inherited, they would run against the wrapper instead of the driver (and the
        // second would send SQL around the analysis if a driver's default ever did).
        assertThat(compileWrapperOmitting("java.sql.Connection", "beginRequest()", out))
                .anySatisfy(error -> assertThat(error).contains("beginRequest()"));
        assertThat(compileWrapperOmitting("java.sql.Statement", "executeLargeUpdate(java.lang.String)", out.resolve("s")))
                .anySatisfy(error -> assertThat(error).contains("executeLargeUpdate(java.lang.String)"));
    }

    @Test
    void aStatementWrapperThatLeavesExecuteToTheGeneratorDoesNotCompile(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.Statement", "executeUpdate(java.lang.String)", out))
                .anySatisfy(error -> assertThat(error).contains("executeUpdate(java.lang.String)"));
    }

    @Test
    void aPreparedStatementWrapperThatLeavesClearParametersOrExecuteToTheGeneratorDoesNotCompile(@TempDir Path out)
            throws IOException {
        assertThat(compileWrapperOmitting("java.sql.PreparedStatement", null, out)).isEmpty();
        assertThat(compileWrapperOmitting("java.sql.PreparedStatement", "clearParameters()", out))
                .anySatisfy(error -> assertThat(error).contains("clearParameters()"));
        assertThat(compileWrapperOmitting("java.sql.PreparedStatement", "executeUpdate()", out))
                .anySatisfy(error -> assertThat(error).contains("executeUpdate()"));
    }

    @Test
    void aCallableStatementWrapperThatLeavesAJdbcObjectToTheGeneratorDoesNotCompile(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.CallableStatement", null, out)).isEmpty();
        assertThat(compileWrapperOmitting("java.sql.CallableStatement", "getObject(int)", out))
                .anySatisfy(error -> assertThat(error).contains("getObject(int)"));
        assertThat(compileWrapperOmitting("java.sql.CallableStatement", "getObject(int,java.lang.Class<T>)", out))
                .anySatisfy(error -> assertThat(error).contains("getObject(int,java.lang.Class<T>)"));
    }

    @Test
    void aConnectionWrapperThatLeavesATransactionSetterToTheGeneratorDoesNotCompile(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.Connection", null, out)).isEmpty();
        assertThat(compileWrapperOmitting("java.sql.Connection", "setTransactionIsolation(int)", out))
                .anySatisfy(error -> assertThat(error).contains("setTransactionIsolation(int)"));
        assertThat(compileWrapperOmitting("java.sql.Connection", "createArrayOf(java.lang.String,java.lang.Object[])", out))
                .anySatisfy(error -> assertThat(error).contains("createArrayOf(java.lang.String,java.lang.Object[])"));
    }

    @Test
    void aParameterMetaDataWrapperThatLeavesUnwrapToTheGeneratorDoesNotCompile(@TempDir Path out) throws IOException {
        assertThat(compileWrapperOmitting("java.sql.ParameterMetaData", null, out)).isEmpty();
        assertThat(compileWrapperOmitting("java.sql.ParameterMetaData", "unwrap(java.lang.Class<T>)", out))
                .anySatisfy(error -> assertThat(error).contains("unwrap(java.lang.Class<T>)"));
    }

    @Test
    void everyForwardedCallReachesTheDriverThroughItsRoute(@TempDir Path out) throws Exception {
        for (String iface : List.of("java.sql.ResultSet", "java.sql.PreparedStatement", "java.sql.CallableStatement",
                "java.sql.ParameterMetaData", "java.sql.Connection")) {
            Path classes = out.resolve(iface);
            assertThat(compileWrapperOmitting(iface, null, classes)).isEmpty();
            try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
                checkEveryForwardedCall(iface, loader.loadClass("probe.Wrapper"));
            }
        }
    }

    /**
     * Calls each forwarded method of a compiled wrapper with index 1 or name "p" and checks what the
     * driver (a recording proxy) received, and what was kept for the zero-row diagnosis.
     */
    @SuppressWarnings("unchecked")
    private static void checkEveryForwardedCall(String iface, Class<?> wrapperClass) throws Exception {
        Class<?> jdbc = Class.forName(iface);
        List<Object[]> calls = new ArrayList<>();
        Object driver = Proxy.newProxyInstance(jdbc.getClassLoader(), new Class<?>[] {jdbc}, (proxy, method, args) -> {
            calls.add(new Object[] {method.getName(), args == null ? new Object[0] : args});
            return zero(method.getReturnType());
        });
        Object wrapper = wrapperClass.getConstructor(jdbc).newInstance(driver);
        TypeElement type = api.getTypeElement(iface);
        int checked = 0;
        for (ExecutableElement method : DelegateGenerator.methodsOf(api, type)) {
            if (DelegateGenerator.handling(type, method) != null) {
                continue;
            }
            Method call = findMethod(wrapperClass, method);
            Object[] arguments = new Object[call.getParameterCount()];
            for (int i = 0; i < arguments.length; i++) {
                Class<?> parameter = call.getParameterTypes()[i];
                arguments[i] = parameter == String.class ? "p" : parameter == int.class ? 1 : zero(parameter);
            }
            calls.clear();
            String what = iface + "." + signature(method);
            try {
                call.invoke(wrapper, arguments);
            } catch (InvocationTargetException refused) {
                assertThat(iface).as(what).isEqualTo("java.sql.Connection");
                assertThat(refused.getCause()).as(what).hasMessage("closed");
                assertThat(calls).as(what).isEmpty();
                checked++;
                continue;
            }
            assertThat(iface).as("%s reached the driver without open()", what).isNotEqualTo("java.sql.Connection");
            assertThat(calls).as(what).hasSize(1);
            Object[] received = (Object[]) calls.get(0)[1];
            Object[] expected = arguments.clone();
            DelegateGenerator.Route route = DelegateGenerator.route(method);
            if (route == DelegateGenerator.Route.PARAMETER_INDEX || route == DelegateGenerator.Route.KEPT_SETTER) {
                expected[0] = 101;
            } else if (route == DelegateGenerator.Route.PARAMETER_NAME) {
                expected[0] = "routed:p";
            }
            assertThat(received).as(what).containsExactly(expected);
            if (List.of(java.sql.Array.class, java.sql.Blob.class, java.sql.Clob.class, java.sql.NClob.class)
                    .contains(call.getReturnType())) {
                // what the application gets goes through the wrapper's hand-out, never the driver's object as it is
                List<Object> handedOut = (List<Object>) wrapperClass.getField("handedOut").get(wrapper);
                assertThat(handedOut).as(what).hasSize(1);
                handedOut.clear();
            }
            long convertible = Arrays.stream(call.getParameterTypes()).filter(p -> p == Object.class
                    || p == java.sql.Array.class || p == java.sql.Blob.class || p == java.sql.Clob.class
                    || p == java.sql.NClob.class).count();
            if (convertible > 0) {
                // one of our arrays or read-only LOBs must reach the driver as the driver's own
                List<Object> converted = (List<Object>) wrapperClass.getField("converted").get(wrapper);
                assertThat(converted).as(what).hasSize((int) convertible);
                converted.clear();
            }
            if (route == DelegateGenerator.Route.KEPT_SETTER) {
                List<Object> kept = (List<Object>) wrapperClass.getField("kept").get(wrapper);
                assertThat(kept).as(what).hasSize(2).first().isEqualTo(1);
                boolean readOnce = Arrays.stream(call.getParameterTypes()).anyMatch(p -> p == java.io.InputStream.class
                        || p == java.io.Reader.class || p == java.sql.SQLXML.class);
                if (readOnce) {
                    assertThat(kept.get(1)).as(what).isEqualTo("unrepeatable");
                } else if (kept.get(1) instanceof List<?> value) {
                    // kept as it is: setObject must bind it as the setter did, which JDBC's standard
                    // mapping promises only for the setter of the value's own type
                    assertThat(call.getParameterCount()).as(what).isEqualTo(2);
                    assertThat(value).as(what).hasSize(1);
                    assertThat(value.get(0)).as(what).isEqualTo(arguments[1]);
                    assertThat(STANDARD_SETTERS.get(call.getParameterTypes()[1])).as(what).isEqualTo(call.getName());
                } else {
                    // the replay sets the same value with the same setter, at the index it is given
                    calls.clear();
                    Method set = kept.get(1).getClass().getMethod("set", java.sql.PreparedStatement.class, int.class);
                    set.setAccessible(true);
                    set.invoke(kept.get(1), driver, 7);
                    expected[0] = 7;
                    assertThat(calls).as(what).hasSize(1);
                    assertThat(calls.get(0)[0]).as(what).isEqualTo(call.getName());
                    assertThat((Object[]) calls.get(0)[1]).as(what).containsExactly(expected);
                }
                kept.clear();
            }
            checked++;
        }
        assertThat(checked).as(iface).isGreaterThan(5);
    }

    private static Method findMethod(Class<?> wrapperClass, ExecutableElement method) {
        List<String> parameters = method.getParameters().stream()
                .map(p -> erasure(p.asType().toString()))
                .collect(Collectors.toList());
        for (Method candidate : wrapperClass.getMethods()) {
            if (candidate.getName().contentEquals(method.getSimpleName())
                    && Arrays.stream(candidate.getParameterTypes()).map(Class::getTypeName)
                            .collect(Collectors.toList()).equals(parameters)) {
                candidate.setAccessible(true);
                return candidate;
            }
        }
        throw new AssertionError("no method " + signature(method) + " in the wrapper");
    }

    private static String erasure(String type) {
        int generic = type.indexOf('<');
        return generic < 0 ? type : type.substring(0, generic);
    }

    private static Object zero(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        return type == boolean.class ? false : type == char.class ? '\0'
                : java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(type, 1), 0);
    }

    private static DelegateGenerator.Route route(String iface, String signature) {
        TypeElement type = api.getTypeElement(iface);
        return DelegateGenerator.methodsOf(api, type).stream().filter(method -> signature(method).equals(signature))
                .map(DelegateGenerator::route).findFirst().orElseThrow();
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

    /** JDBC's standard mapping from Java types to the setters that bind them (JDBC 4.3, table B-4). */
    private static final Map<Class<?>, String> STANDARD_SETTERS = Map.ofEntries(
            Map.entry(boolean.class, "setBoolean"), Map.entry(byte.class, "setByte"), Map.entry(short.class, "setShort"),
            Map.entry(int.class, "setInt"), Map.entry(long.class, "setLong"), Map.entry(float.class, "setFloat"),
            Map.entry(double.class, "setDouble"), Map.entry(java.math.BigDecimal.class, "setBigDecimal"),
            Map.entry(String.class, "setString"), Map.entry(byte[].class, "setBytes"),
            Map.entry(java.sql.Date.class, "setDate"), Map.entry(java.sql.Time.class, "setTime"),
            Map.entry(java.sql.Timestamp.class, "setTimestamp"), Map.entry(java.net.URL.class, "setURL"),
            Map.entry(java.sql.Array.class, "setArray"), Map.entry(java.sql.Blob.class, "setBlob"),
            Map.entry(java.sql.Clob.class, "setClob"), Map.entry(java.sql.NClob.class, "setNClob"),
            Map.entry(java.sql.Ref.class, "setRef"), Map.entry(java.sql.RowId.class, "setRowId"),
            Map.entry(Object.class, "setObject"));

    private static final String KEEP_HOOKS = "    public final java.util.List<Object> kept = new java.util.ArrayList<>();\n"
            + "    boolean keepsValues() { return true; }\n"
            + "    void keepValue(int i, Object value) { kept.add(i); kept.add(java.util.Arrays.asList(value)); }\n"
            + "    void keep(int i, Object value, Replay replay) { kept.add(i); kept.add(replay); }\n"
            + "    void keepUnrepeatable(int i) { kept.add(i); kept.add(\"unrepeatable\"); }\n";

    private static final String CONVERT_HOOKS = "    public final java.util.List<Object> converted = new java.util.ArrayList<>();\n"
            + "    <T> T toDriver(T v) { converted.add(v); return v; }\n";

    /**
     * What the generated class routes through, implemented so that a test can see it: indexes are
     * shifted by 100, names prefixed, kept values and conversions recorded, and a connection is
     * always closed.
     */

    private static final String HAND_OUT_HOOKS = "    public final java.util.List<Object> handedOut = new java.util.ArrayList<>();\n"
            + "    <T> T toApplication(T v) { handedOut.add(v); return v; }\n";

    private static final Map<String, String> HOOKS = Map.of(
            "java.sql.ResultSet", CONVERT_HOOKS + HAND_OUT_HOOKS,
            "java.sql.Connection", "    java.sql.Connection open() throws java.sql.SQLException {"
                    + " throw new java.sql.SQLException(\"closed\"); }\n" + HAND_OUT_HOOKS,
            "java.sql.ParameterMetaData", "    int parameterIndex(int i) { return i + 100; }\n",
            "java.sql.PreparedStatement", "    int parameterIndex(int i) { return i + 100; }\n" + KEEP_HOOKS + CONVERT_HOOKS,
            "java.sql.CallableStatement", "    int parameterIndex(int i) { return i + 100; }\n" + KEEP_HOOKS + CONVERT_HOOKS
                    + HAND_OUT_HOOKS
                    + "    String parameterName(String name) { return \"routed:\" + name; }\n");

    /**
     * Generates the delegate of {@code iface} and a subclass that implements every method the
     * generator refused, except {@code omitted}; returns the compiler's errors.
     */
    private static List<String> compileWrapperOmitting(String iface, String omitted, Path out) throws IOException {
        TypeElement type = api.getTypeElement(iface);
        String generated = DelegateGenerator.generate(api, type, "probe.Generated");
        StringBuilder wrapper = new StringBuilder("package probe;\n@SuppressWarnings(\"unchecked\")\n"
                + "public final class Wrapper extends Generated {\n    public Wrapper(" + iface + " d) { super(d); }\n");
        wrapper.append(HOOKS.getOrDefault(iface, ""));
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
