package dev.fencing.build;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import com.sun.source.util.JavacTask;

/**
 * Generates the pass-through half of the JDBC wrappers at build time, so that only the methods
 * that matter for fencing are written by hand.
 *
 * <p>For each {@code interface=generated.ClassName} argument it writes an abstract class that
 * implements the interface and forwards every <em>harmless</em> method to a field named
 * {@code delegate}. The interface is read from the Java 17 API ({@code --release 17}), not from the
 * JDK that runs the build, so a newer JDK cannot slip in methods the wrappers were never reviewed
 * against.
 *
 * <p>Deny by default: a method is forwarded only when {@link #handling} finds nothing dangerous
 * about it, or it is one of the {@link #REVIEWED_FORWARDS}; JDBC objects are forwarded only when
 * they are {@link #VALUE_TYPES}, or (as parameters) converted by the {@code toDriver} hook. Every other method is left out, so the hand-written subclass does not compile until it
 * implements it; a dangerous {@code default} method is re-declared {@code abstract} for the same
 * reason (otherwise the interface's default would silently run against the wrapper).
 *
 * <p>Some harmless methods are forwarded through a hook the subclass implements (see {@link Route}):
 * a parameter index goes through {@code parameterIndex(int)}, because the rewrite renumbers the
 * parameters around the fence; a value set by index is also offered to {@code keep*}, for the
 * zero-row diagnosis that sets it again; binding a parameter by name goes through
 * {@code parameterName(String)}; and a connection is reached through {@code open()}, so that a
 * closed wrapper refuses. A hook is an abstract method of the generated class, so a subclass that
 * does not route cannot compile either.
 *
 * <p>Usage: {@code java DelegateGenerator.java OUTPUT_DIR interface=generated.ClassName[:Core(interface,...)] ...}.
 * {@code :Core(interface,...)}: the wrapper is composed with {@code Core}, a hand-written class of the
 * generated class's package; the methods refused for the listed interfaces, and the hooks, are
 * forwarded to it (so the statement wrappers share one implementation of what {@code Statement}
 * and {@code PreparedStatement} refuse, instead of inheriting it from each other).
 */
public final class DelegateGenerator {

    /** Methods that end, start or shape a transaction, or change what a connection lets through. */
    private static final Set<String> TRANSACTION_AND_LIFECYCLE = Set.of(
            "commit", "rollback", "setAutoCommit", "setSavepoint", "releaseSavepoint",
            "setTransactionIsolation", "setReadOnly", "close", "abort", "beginRequest", "endRequest",
            "setShardingKey", "setShardingKeyIfValid", "setNetworkTimeout");

    /** Interfaces whose String parameters may be SQL text (or a cursor name that SQL can refer to). */
    private static final Set<String> SQL_TAKING = Set.of(
            "java.sql.Connection", "java.sql.Statement", "java.sql.PreparedStatement",
            "java.sql.CallableStatement");

    /**
     * Interfaces whose own methods address a statement's parameters: an {@code int} first parameter
     * is a parameter index, a {@code String} one a parameter name. None of their own methods takes
     * SQL text: a prepared or callable statement receives SQL only through the methods it inherits
     * from {@code Statement}.
     */
    private static final Set<String> PARAMETER_INTERFACES = Set.of(
            "java.sql.PreparedStatement", "java.sql.CallableStatement", "java.sql.ParameterMetaData");

    /**
     * The setter JDBC's standard type mapping pairs with each Java type: {@code setObject} binds a
     * value of that type as this setter does, so such a value is kept as it is (no replay object)
     * and set again with {@code setObject}.
     */
    private static final Map<String, String> STANDARD_SETTERS = Map.ofEntries(
            Map.entry("boolean", "setBoolean"), Map.entry("byte", "setByte"), Map.entry("short", "setShort"),
            Map.entry("int", "setInt"), Map.entry("long", "setLong"), Map.entry("float", "setFloat"),
            Map.entry("double", "setDouble"), Map.entry("java.math.BigDecimal", "setBigDecimal"),
            Map.entry("java.lang.String", "setString"), Map.entry("byte[]", "setBytes"),
            Map.entry("java.sql.Date", "setDate"), Map.entry("java.sql.Time", "setTime"),
            Map.entry("java.sql.Timestamp", "setTimestamp"), Map.entry("java.net.URL", "setURL"),
            Map.entry("java.sql.Array", "setArray"), Map.entry("java.sql.Blob", "setBlob"),
            Map.entry("java.sql.Clob", "setClob"), Map.entry("java.sql.NClob", "setNClob"),
            Map.entry("java.sql.Ref", "setRef"), Map.entry("java.sql.RowId", "setRowId"),
            // setObject(index, value) sets an Object again exactly as it was set
            Map.entry("java.lang.Object", "setObject"));

    /** Interfaces forwarded through {@code open()}: the wrapper refuses every call once it is closed. */
    private static final Set<String> CHECKED_BEFORE_USE = Set.of("java.sql.Connection");

    /**
     * JDBC interfaces whose objects are values: handed out and taken in as the driver made them.
     * None of them runs SQL, writes to the database or hands out a connection or statement, and the
     * wrappers never wrap them, so what an application passes in is the driver's own object (or
     * the application's). Anything else of {@code java.sql}/{@code javax.sql} is by hand. Not here:
     * {@code Blob}, {@code Clob}, {@code NClob}: on PostgreSQL one read from a result set is the
     * large object itself, and a write through it changes the database around every check, so the
     * wrappers hand them out read-only ({@code FencedBlob}, {@code FencedClob}).
     */
    static final Map<String, String> VALUE_TYPES = Map.of(
            "java.sql.SQLXML", "an XML value; one read from a result set cannot be written (pgjdbc, H2), a new one"
                    + " reaches the database only when set on a statement",
            "java.sql.Ref", "a reference to a structured value; setting its object is the driver's business, no supported driver implements it",
            "java.sql.RowId", "a row address, used only as a bound value",
            "java.sql.Struct", "a structured value's attributes",
            "java.sql.ResultSetMetaData", "column descriptions; the rewrite adds no result column",
            "java.sql.SQLType", "a type code (JDBCType or a driver's vendor type)");

    /**
     * Return types the wrappers hand out wrapped: the generated method passes the driver's object
     * through the {@code toApplication} hook, which the subclass implements (an array that leads
     * back to the wrappers only, a read-only LOB). Any other returned JDBC object is by hand.
     */
    private static final Set<String> HANDED_OUT_WRAPPED = Set.of(
            "java.sql.Array", "java.sql.Blob", "java.sql.Clob", "java.sql.NClob");

    /**
     * Parameter types that may hold one of our wrappers (a {@code FencedArray}, a read-only LOB, or
     * one of them as an Object): they reach the driver through the {@code toDriver} hook, which
     * hands the driver its own object back.
     */
    private static final Set<String> CONVERTED_TO_DRIVER = Set.of(
            "java.lang.Object", "java.sql.Array", "java.sql.Blob", "java.sql.Clob", "java.sql.NClob");

    /**
     * Methods the rules of {@link #dangerOf} hold back that were read one by one and are forwarded
     * as they are, each with the reason it is safe; named with their parameter types, so that no
     * overload comes along unread. A method leaves this list only by being written by hand;
     * DelegateGeneratorTest checks that every entry names one method and that the rules alone would
     * refuse it (no entry here is a leftover).
     */
    static final Map<String, String> REVIEWED_FORWARDS = Map.ofEntries(
            Map.entry("java.sql.Connection.setReadOnly(boolean)", "a hint that the session only reads; it neither"
                    + " starts nor ends a transaction (pgjdbc refuses it inside one, MariaDB and H2 set a session flag)"),
            Map.entry("java.sql.Connection.setNetworkTimeout(java.util.concurrent.Executor,int)", "a client socket"
                    + " timeout; when it fires the connection is lost, which the pipeline already handles as a failed statement"),
            Map.entry("java.sql.Connection.setShardingKey(java.sql.ShardingKey)", "JDBC 4.3 sharding; the interface's"
                    + " default refuses and no supported driver implements it"),
            Map.entry("java.sql.Connection.setShardingKey(java.sql.ShardingKey,java.sql.ShardingKey)", "the same"),
            Map.entry("java.sql.Connection.setShardingKeyIfValid(java.sql.ShardingKey,int)", "the same"),
            Map.entry("java.sql.Connection.setShardingKeyIfValid(java.sql.ShardingKey,java.sql.ShardingKey,int)", "the same"),
            Map.entry("java.sql.Connection.getClientInfo(java.lang.String)", "its String is a client-info property"
                    + " name, read only"),
            Map.entry("java.sql.Connection.createStruct(java.lang.String,java.lang.Object[])", "its String is an SQL"
                    + " type name; it builds a value and sends nothing (no supported driver implements it)"),
            Map.entry("java.sql.Statement.setCursorName(java.lang.String)", "names the result's cursor; a positioned"
                    + " UPDATE ... WHERE CURRENT OF that uses it is SQL text, analysed (and refused) when executed"),
            Map.entry("java.sql.Statement.enquoteLiteral(java.lang.String)", "returns quoted text and runs nothing;"
                    + " left to the driver, which knows its server's quoting (MariaDB escapes backslashes unless"
                    + " NO_BACKSLASH_ESCAPES), and what the application builds with it is analysed like any other text"),
            Map.entry("java.sql.Statement.enquoteIdentifier(java.lang.String,boolean)", "the same"),
            Map.entry("java.sql.Statement.enquoteNCharLiteral(java.lang.String)", "the same"),
            Map.entry("java.sql.Statement.isSimpleIdentifier(java.lang.String)", "the same"));

    /** How a forwarded method reaches the delegate. */
    enum Route {
        /** Called as it is. */
        PLAIN,
        /** Its first argument, a parameter index in the application's numbering, goes through {@code parameterIndex}. */
        PARAMETER_INDEX,
        /** As {@link #PARAMETER_INDEX}, and afterwards how the value was set is offered to {@code keep*}. */
        KEPT_SETTER,
        /** Binds or registers by name: the name goes through {@code parameterName}, which may refuse. */
        PARAMETER_NAME
    }

    private DelegateGenerator() {
    }

    /**
     * Why a method of {@code iface} must be written by hand, or null when it may be forwarded. A
     * reviewed forward overrules {@link #dangerOf}, never the check before use.
     */
    static String handling(TypeElement iface, ExecutableElement method) {
        String name = iface.getQualifiedName().toString();
        if (CHECKED_BEFORE_USE.contains(name) && method.getThrownTypes().stream()
                .noneMatch(thrown -> thrown.toString().equals("java.sql.SQLException"))) {
            return "cannot be checked before use: open() throws SQLException, which it does not declare";
        }
        return REVIEWED_FORWARDS.containsKey(reviewKey(method)) ? null : dangerOf(iface, method);
    }

    /** How {@link #REVIEWED_FORWARDS} names a method: declaring interface, name and parameter types. */
    static String reviewKey(ExecutableElement method) {
        return declaringInterface(method) + "." + signature(method);
    }

    /** What the rules alone find dangerous about a method, or null; {@link #REVIEWED_FORWARDS} may overrule them. */
    static String dangerOf(TypeElement iface, ExecutableElement method) {
        String name = method.getSimpleName().toString();
        if (name.equals("unwrap") || name.equals("isWrapperFor")) {
            return "unwrap must never reach the driver's own objects";
        }
        TypeMirror returned = method.getReturnType();
        if (isJdbcObject(returned) && !VALUE_TYPES.containsKey(returned.toString())
                && !HANDED_OUT_WRAPPED.contains(returned.toString())) {
            return "returns " + returned + ", which must be handed out wrapped";
        }
        for (VariableElement parameter : method.getParameters()) {
            String type = parameter.asType().toString();
            if (isJdbcObject(parameter.asType()) && !VALUE_TYPES.containsKey(type) && !CONVERTED_TO_DRIVER.contains(type)) {
                return "takes a " + type + ", which may be one of our wrappers and must reach the"
                        + " driver as the driver's own object";
            }
        }
        String owner = iface.getQualifiedName().toString();
        if (owner.equals("java.sql.ResultSet") && isRowWrite(name)) {
            return "sends a row write around the fence check";
        }
        if (SQL_TAKING.contains(owner)) {
            if (name.startsWith("execute") || name.startsWith("addBatch") || name.equals("clearBatch")
                    || name.startsWith("prepare") || name.equals("nativeSQL")) {
                return "runs or prepares SQL";
            }
            if (TRANSACTION_AND_LIFECYCLE.contains(name)) {
                return "changes the transaction or the connection's state, which the driver tracks";
            }
            if (!PARAMETER_INTERFACES.contains(declaringInterface(method))) {
                for (VariableElement parameter : method.getParameters()) {
                    if (parameter.asType().toString().equals("java.lang.String")) {
                        return "takes a String that may be SQL text";
                    }
                }
            }
        }
        if (PARAMETER_INTERFACES.contains(declaringInterface(method)) && !method.getParameters().isEmpty()
                && !isParameterIndex(method) && !isParameterName(method)) {
            return "cannot tell which parameter it addresses";
        }
        if (name.equals("clearParameters")) {
            return "the values kept for the zero-row diagnosis must be forgotten with the driver's";
        }
        return null;
    }

    /** How {@code method}, which {@link #handling} lets the generator write, reaches the delegate. */
    static Route route(ExecutableElement method) {
        if (!PARAMETER_INTERFACES.contains(declaringInterface(method)) || method.getParameters().isEmpty()) {
            return Route.PLAIN;
        }
        String name = method.getSimpleName().toString();
        if (isParameterIndex(method)) {
            return name.startsWith("set") ? Route.KEPT_SETTER : Route.PARAMETER_INDEX;
        }
        // reading a value by name is harmless (and allowed on every statement); binding or
        // registering one by name is the wrapper's to allow
        return name.startsWith("get") ? Route.PLAIN : Route.PARAMETER_NAME;
    }

    /** True when what {@code method} returns goes through {@code toApplication} on its way to the application. */
    static boolean handsOutWrapped(ExecutableElement method) {
        return HANDED_OUT_WRAPPED.contains(method.getReturnType().toString());
    }

    /** True when an argument of {@code method} goes through {@code toDriver} on its way to the driver. */
    static boolean convertsToDriver(ExecutableElement method) {
        return method.getParameters().stream().anyMatch(p -> CONVERTED_TO_DRIVER.contains(p.asType().toString()));
    }

    private static boolean isParameterIndex(ExecutableElement method) {
        return method.getParameters().get(0).asType().getKind() == TypeKind.INT;
    }

    private static boolean isParameterName(ExecutableElement method) {
        return method.getParameters().get(0).asType().toString().equals("java.lang.String");
    }

    private static String declaringInterface(ExecutableElement method) {
        return ((TypeElement) method.getEnclosingElement()).getQualifiedName().toString();
    }

    /**
     * The updatable-result-set calls that reach the database. The {@code updateXxx} column setters
     * only change the row buffer on the client, so they may be forwarded.
     */
    private static boolean isRowWrite(String name) {
        return name.equals("insertRow") || name.equals("updateRow") || name.equals("deleteRow");
    }

    /** Interfaces of java.sql/javax.sql, Object and type variables: anything that may be a raw driver object. */
    private static boolean isJdbcObject(TypeMirror type) {
        if (type.getKind() == TypeKind.TYPEVAR) {
            return true;
        }
        if (type.getKind() != TypeKind.DECLARED) {
            return false;
        }
        TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
        String name = element.getQualifiedName().toString();
        if (name.equals("java.lang.Object")) {
            return true;
        }
        return element.getKind() == ElementKind.INTERFACE
                && (name.startsWith("java.sql.") || name.startsWith("javax.sql."));
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: DelegateGenerator OUTPUT_DIR interface=generated.ClassName ...");
        }
        Path output = Path.of(args[0]);
        List<String> interfaces = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            interfaces.add(args[i].substring(0, args[i].indexOf('=')));
        }
        // a core, if any, follows the generated name after ':'
        Elements elements = java17Api(interfaces);
        for (int i = 1; i < args.length; i++) {
            String[] pair = args[i].split("=", 2);
            TypeElement iface = elements.getTypeElement(pair[0]);
            if (iface == null) {
                throw new IllegalArgumentException("no interface " + pair[0] + " in the Java 17 API");
            }
            String[] names = pair[1].split(":", 2);
            String generated = names[0];
            String source = generate(elements, iface, generated, names.length == 2 ? names[1] : null);
            Path file = output.resolve(generated.replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            if (!Files.exists(file) || !Files.readString(file).equals(source)) {
                Files.writeString(file, source, StandardCharsets.UTF_8);
            }
        }
    }

    /** The element model of the Java 17 API, whatever JDK runs this. */
    static Elements java17Api(List<String> interfaces) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StringBuilder probe = new StringBuilder("class Probe {");
        for (int i = 0; i < interfaces.size(); i++) {
            probe.append(interfaces.get(i)).append(" f").append(i).append(';');
        }
        probe.append('}');
        JavaFileObject source = new SimpleJavaFileObject(URI.create("string:///Probe.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return probe;
            }
        };
        JavacTask task = (JavacTask) compiler.getTask(new StringWriter(), null, null,
                List.of("--release", "17", "-proc:none"), null, List.of(source));
        try {
            task.analyze();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the Java 17 API", e);
        }
        return task.getElements();
    }

    static String generate(Elements elements, TypeElement iface, String generatedName) {
        return generate(elements, iface, generatedName, null);
    }

    /**
     * @param core null, or {@code CoreType(interface,...)}: a hand-written class of the generated
     *             class's package that the wrapper is composed with. Every method refused for one of
     *             the listed interfaces is forwarded to the field {@code core} (the core must declare
     *             it, or nothing compiles), and so is every hook; refused methods of other
     *             interfaces are left to the subclass as without a core.
     */
    static String generate(Elements elements, TypeElement iface, String generatedName, String core) {
        int dot = generatedName.lastIndexOf('.');
        String packageName = generatedName.substring(0, dot);
        String simpleName = generatedName.substring(dot + 1);
        String ifaceName = iface.getQualifiedName().toString();
        String coreType = core == null ? null : core.substring(0, core.indexOf('('));
        Set<String> coreInterfaces = core == null ? Set.of()
                : Set.of(core.substring(core.indexOf('(') + 1, core.length() - 1).split(","));

        List<ExecutableElement> methods = methodsOf(elements, iface);
        Set<Route> routes = EnumSet.noneOf(Route.class);
        boolean converts = false;
        boolean handsOut = false;
        for (ExecutableElement method : methods) {
            if (handling(iface, method) == null) {
                routes.add(route(method));
                converts |= convertsToDriver(method);
                handsOut |= handsOutWrapped(method);
            }
        }
        boolean checked = CHECKED_BEFORE_USE.contains(ifaceName);

        StringWriter text = new StringWriter();
        try (Writer out = text) {
            out.write("// Generated at build time by dev.fencing.build.DelegateGenerator from the Java 17 API of\n");
            out.write("// " + ifaceName + ". Do not edit: change the hand-written subclass instead.\n");
            out.write("package " + packageName + ";\n\n");
            out.write("/**\n * The pass-through methods of {@link " + ifaceName + "}. Methods that hand out JDBC objects to\n");
            out.write(" * wrap, take SQL text, can write or change transaction state are not here (but for the\n");
            out.write(" * generator's value types and reviewed forwards): the subclass must implement each of them by\n");
            out.write(" * hand (dangerous {@code default} methods are re-declared abstract)");
            out.write(core == null ? ".\n */\n" : ", or, for " + String.join(", ", new java.util.TreeSet<>(coreInterfaces))
                    + ",\n * its core {@link " + coreType + "} does.\n */\n");
            out.write("@SuppressWarnings({\"deprecation\", \"removal\"})\n");
            out.write("abstract class " + simpleName + " implements " + ifaceName + " {\n\n");
            out.write("    /** The driver's own object; never handed out. */\n");
            out.write("    final " + ifaceName + " delegate;\n");
            if (core != null) {
                out.write("\n    /** What the wrapper does by hand for " + String.join(", ", new java.util.TreeSet<>(coreInterfaces))
                        + ". */\n");
                out.write("    final " + coreType + " core;\n");
            }
            out.write("\n    " + simpleName + "(" + ifaceName + " delegate" + (core == null ? "" : ", " + coreType + " core")
                    + ") {\n");
            out.write("        this.delegate = java.util.Objects.requireNonNull(delegate, \"delegate\");\n");
            if (core != null) {
                out.write("        this.core = java.util.Objects.requireNonNull(core, \"core\");\n");
            }
            out.write("    }\n");
            writeHooks(out, routes, checked, ifaceName, converts, handsOut, coreType);
            for (ExecutableElement method : methods) {
                String reason = handling(iface, method);
                if (reason == null) {
                    writeForward(out, method, route(method), checked ? "open()" : "delegate");
                } else if (coreInterfaces.contains(declaringInterface(method))) {
                    writeCoreForward(out, method);
                } else if (method.isDefault()) {
                    writeAbstract(out, method, reason);
                }
            }
            out.write("}\n");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return text.toString();
    }

    /** A refused method the core implements by hand: called on it with the same arguments. */
    private static void writeCoreForward(Writer out, ExecutableElement method) throws IOException {
        writeHeader(out, method, false);
        String arguments = method.getParameters().stream().map(parameter -> parameterName(method, parameter))
                .collect(Collectors.joining(", "));
        String call = "core." + method.getSimpleName() + "(" + arguments + ")";
        out.write(" {\n        " + (method.getReturnType().getKind() == TypeKind.VOID ? call : "return " + call)
                + ";\n    }\n");
    }

    /** The hooks the forwarded methods route through; the subclass (or the core) implements each. */
    private static void writeHooks(Writer out, Set<Route> routes, boolean checked, String ifaceName, boolean converts,
                                   boolean handsOut, String core) throws IOException {
        if (converts) {
            out.write("\n    /** The driver's own object for a value the application passes in, which may be one of our wrappers. */\n");
            writeHook(out, core, "<T> T", "toDriver", "T value", "value", "");
        }
        if (handsOut) {
            out.write("\n    /** What the application gets for an array or LOB of the driver's: a wrapper, or the object itself. */\n");
            writeHook(out, core, "<T> T", "toApplication", "T value", "value", "");
        }
        if (checked) {
            out.write("\n    /** The delegate, while the wrapper may still be used; else an SQLException. */\n");
            writeHook(out, core, ifaceName, "open", "", "", SQL_EXCEPTION);
        }
        if (routes.contains(Route.PARAMETER_INDEX) || routes.contains(Route.KEPT_SETTER)) {
            out.write("\n    /**\n     * The driver's index of the application's parameter {@code parameterIndex}; an index the\n");
            out.write("     * application's text does not have is refused, so that no call reaches a fence slot.\n     */\n");
            writeHook(out, core, "int", "parameterIndex", "int parameterIndex", "parameterIndex", SQL_EXCEPTION);
        }
        if (routes.contains(Route.KEPT_SETTER)) {
            String replay = core == null ? "Replay" : core + ".Replay";
            out.write("\n    /** True when the values set by index must be kept, to be set again on another statement. */\n");
            writeHook(out, core, "boolean", "keepsValues", "", "", "");
            out.write("\n    /** Keeps the value of parameter {@code parameterIndex}, which {@code setObject} sets again as the application's setter did. */\n");
            writeHook(out, core, "void", "keepValue", "int parameterIndex, Object value", "parameterIndex, value", "");
            out.write("\n    /**\n     * Keeps how the application set parameter {@code parameterIndex} to {@code value} (null for\n");
            out.write("     * {@code setNull}): {@code replay} sets it again.\n     */\n");
            writeHook(out, core, "void", "keep", "int parameterIndex, Object value, " + replay + " replay",
                    "parameterIndex, value, replay", "");
            out.write("\n    /** Keeps that parameter {@code parameterIndex} was set from a stream or reader, which is read once. */\n");
            writeHook(out, core, "void", "keepUnrepeatable", "int parameterIndex", "parameterIndex", "");
            if (core == null) {
                out.write("\n    /** Sets a kept value again, with the setter the application used, on another statement. */\n");
                out.write("    @FunctionalInterface\n    interface Replay {\n");
                out.write("        void set(java.sql.PreparedStatement target, int index) throws java.sql.SQLException;\n    }\n");
            }
        }
        if (routes.contains(Route.PARAMETER_NAME)) {
            out.write("\n    /** The name to bind or register parameter {@code parameterName} by; refuses when names may not be used. */\n");
            writeHook(out, core, "String", "parameterName", "String parameterName", "parameterName", SQL_EXCEPTION);
        }
    }

    private static final String SQL_EXCEPTION = " throws java.sql.SQLException";

    /**
     * One hook: abstract (the subclass implements it), or, when the class has a core, a final
     * forward to the core's method of the same name (which the core must have, or nothing compiles).
     */
    private static void writeHook(Writer out, String core, String returns, String name, String parameters,
                                  String arguments, String throwsClause) throws IOException {
        if (core == null) {
            out.write("    abstract " + returns + " " + name + "(" + parameters + ")" + throwsClause + ";\n");
        } else {
            String call = "core." + name + "(" + arguments + ")";
            out.write("    final " + returns + " " + name + "(" + parameters + ")" + throwsClause + " {\n        "
                    + (returns.equals("void") ? call : "return " + call) + ";\n    }\n");
        }
    }

    /** Every abstract or default instance method the interface has, its own and inherited, in a stable order. */
    static List<ExecutableElement> methodsOf(Elements elements, TypeElement iface) {
        List<ExecutableElement> methods = new ArrayList<>();
        for (Element member : elements.getAllMembers(iface)) {
            if (member.getKind() != ElementKind.METHOD || member.getModifiers().contains(Modifier.STATIC)) {
                continue;
            }
            Element owner = member.getEnclosingElement();
            if (owner instanceof TypeElement type && type.getQualifiedName().contentEquals("java.lang.Object")) {
                continue;
            }
            ExecutableElement method = (ExecutableElement) member;
            if (method.getModifiers().contains(Modifier.ABSTRACT) || method.isDefault()) {
                methods.add(method);
            }
        }
        methods.sort((a, b) -> signature(a).compareTo(signature(b)));
        return methods;
    }

    private static String signature(ExecutableElement method) {
        return method.getSimpleName() + method.getParameters().stream()
                .map(p -> p.asType().toString()).collect(Collectors.joining(",", "(", ")"));
    }

    private static void writeForward(Writer out, ExecutableElement method, Route route, String target)
            throws IOException {
        writeHeader(out, method, false);
        List<String> names = new ArrayList<>();
        for (VariableElement parameter : method.getParameters()) {
            names.add(parameterName(method, parameter));
        }
        out.write(" {\n");
        for (int i = 0; i < names.size(); i++) {
            String type = method.getParameters().get(i).asType().toString();
            if (CONVERTED_TO_DRIVER.contains(type)) {
                out.write("        " + type + " driver" + Character.toUpperCase(names.get(i).charAt(0))
                        + names.get(i).substring(1) + " = toDriver(" + names.get(i) + ");\n");
                names.set(i, "driver" + Character.toUpperCase(names.get(i).charAt(0)) + names.get(i).substring(1));
            }
        }
        List<String> arguments = new ArrayList<>(names);
        if (route == Route.PARAMETER_INDEX || route == Route.KEPT_SETTER) {
            arguments.set(0, "parameterIndex(" + names.get(0) + ")");
        } else if (route == Route.PARAMETER_NAME) {
            arguments.set(0, "parameterName(" + names.get(0) + ")");
        }
        String call = target + "." + method.getSimpleName() + "(" + String.join(", ", arguments) + ")";
        if (handsOutWrapped(method)) {
            call = "toApplication(" + call + ")";
        }
        out.write("        " + (method.getReturnType().getKind() == TypeKind.VOID ? call : "return " + call) + ";\n");
        if (route == Route.KEPT_SETTER) {
            out.write("        if (keepsValues()) {\n");
            if (method.getParameters().stream().anyMatch(parameter -> isReadOnce(parameter.asType()))) {
                out.write("            keepUnrepeatable(" + names.get(0) + ");\n");
            } else if (names.size() == 2 && method.getSimpleName().contentEquals(
                    STANDARD_SETTERS.getOrDefault(method.getParameters().get(1).asType().toString(), ""))) {
                out.write("            keepValue(" + names.get(0) + ", " + names.get(1) + ");\n");
            } else {
                List<String> replayed = new ArrayList<>(names);
                replayed.set(0, "index");
                String value = method.getSimpleName().contentEquals("setNull") ? "null" : names.get(1);
                out.write("            keep(" + names.get(0) + ", " + value + ", (target, index) -> target."
                        + method.getSimpleName() + "(" + String.join(", ", replayed) + "));\n");
            }
            out.write("        }\n");
        }
        out.write("    }\n");
    }

    /** A stream, a reader or an SQLXML value: the first execution consumes it, so it cannot be set again. */
    private static boolean isReadOnce(TypeMirror type) {
        String name = type.toString();
        return name.equals("java.io.InputStream") || name.equals("java.io.Reader") || name.equals("java.sql.SQLXML");
    }

    private static void writeAbstract(Writer out, ExecutableElement method, String reason) throws IOException {
        out.write("\n    /** Not forwarded: " + reason + ". */");
        writeHeader(out, method, true);
        out.write(";\n");
    }

    private static void writeHeader(Writer out, ExecutableElement method, boolean isAbstract) throws IOException {
        out.write("\n");
        if (method.getAnnotation(Deprecated.class) != null) {
            out.write("    @Deprecated\n");
        }
        String typeParameters = method.getTypeParameters().isEmpty() ? ""
                : method.getTypeParameters().stream().map(Object::toString).collect(Collectors.joining(", ", "<", "> "));
        out.write("    @Override\n    public " + (isAbstract ? "abstract " : "") + typeParameters + method.getReturnType()
                + " " + method.getSimpleName() + "(");
        StringJoiner parameters = new StringJoiner(", ");
        for (VariableElement parameter : method.getParameters()) {
            parameters.add(parameter.asType() + " " + parameterName(method, parameter));
        }
        out.write(parameters + ")");
        if (!method.getThrownTypes().isEmpty()) {
            out.write(" throws " + method.getThrownTypes().stream().map(TypeMirror::toString)
                    .collect(Collectors.joining(", ")));
        }
    }

    /** The Java 17 API (ct.sym) keeps no parameter names; name them by type and position. */
    private static String parameterName(ExecutableElement method, VariableElement parameter) {
        int index = method.getParameters().indexOf(parameter);
        TypeMirror type = parameter.asType();
        String base;
        if (type.getKind().isPrimitive()) {
            base = type.toString();
        } else if (type.getKind() == TypeKind.ARRAY) {
            base = "array";
        } else if (type.getKind() == TypeKind.DECLARED) {
            base = ((DeclaredType) type).asElement().getSimpleName().toString();
        } else {
            base = "value";
        }
        int upper = 0;
        while (upper < base.length() && Character.isUpperCase(base.charAt(upper))) {
            upper++;
        }
        int lowered = upper > 1 && upper < base.length() ? upper - 1 : Math.max(upper, 1);
        return base.substring(0, lowered).toLowerCase(Locale.ROOT) + base.substring(lowered) + index;
    }
}
