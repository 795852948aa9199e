package dev.fencing.build;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
 * about it. Every other method is left out, so the hand-written subclass does not compile until it
 * implements it; a dangerous {@code default} method is re-declared {@code abstract} for the same
 * reason (otherwise the interface's default would silently run against the wrapper).
 *
 * <p>Usage: {@code java DelegateGenerator.java OUTPUT_DIR interface=generated.ClassName[:SuperClass] ...}
 * (a superclass, in the generated class's package, with a no-argument constructor, when the
 * wrapper must also extend a class of its own).
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

    private DelegateGenerator() {
    }

    /** Why a method of {@code iface} must be written by hand, or null when it may be forwarded. */
    static String handling(TypeElement iface, ExecutableElement method) {
        String name = method.getSimpleName().toString();
        if (name.equals("unwrap") || name.equals("isWrapperFor")) {
            return "unwrap must never reach the driver's own objects";
        }
        TypeMirror returned = method.getReturnType();
        if (isJdbcObject(returned)) {
            return "returns " + returned + ", which must be handed out wrapped";
        }
        for (VariableElement parameter : method.getParameters()) {
            if (isJdbcObject(parameter.asType())) {
                return "takes a " + parameter.asType() + ", which may be one of our wrappers and must reach the"
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
            for (VariableElement parameter : method.getParameters()) {
                if (parameter.asType().toString().equals("java.lang.String")) {
                    return "takes a String that may be SQL text";
                }
            }
        }
        return null;
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
        // a superclass, if any, follows the generated name after ':'
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

    static String generate(Elements elements, TypeElement iface, String generatedName, String superclass) {
        int dot = generatedName.lastIndexOf('.');
        String packageName = generatedName.substring(0, dot);
        String simpleName = generatedName.substring(dot + 1);
        String ifaceName = iface.getQualifiedName().toString();

        StringWriter text = new StringWriter();
        try (Writer out = text) {
            out.write("// Generated at build time by dev.fencing.build.DelegateGenerator from the Java 17 API of\n");
            out.write("// " + ifaceName + ". Do not edit: change the hand-written subclass instead.\n");
            out.write("package " + packageName + ";\n\n");
            out.write("/**\n * The pass-through methods of {@link " + ifaceName + "}. Methods that return JDBC objects,\n");
            out.write(" * take SQL text, can write or change transaction state are not here: the subclass must\n");
            out.write(" * implement each of them by hand (dangerous {@code default} methods are re-declared abstract).\n */\n");
            out.write("@SuppressWarnings({\"deprecation\", \"removal\"})\n");
            out.write("abstract class " + simpleName + (superclass == null ? "" : " extends " + superclass)
                    + " implements " + ifaceName + " {\n\n");
            out.write("    /** The driver's own object; never handed out. */\n");
            out.write("    final " + ifaceName + " delegate;\n\n");
            out.write("    " + simpleName + "(" + ifaceName + " delegate) {\n");
            out.write("        this.delegate = java.util.Objects.requireNonNull(delegate, \"delegate\");\n");
            out.write("    }\n");
            for (ExecutableElement method : methodsOf(elements, iface)) {
                String reason = handling(iface, method);
                if (reason == null) {
                    writeForward(out, method);
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

    private static void writeForward(Writer out, ExecutableElement method) throws IOException {
        writeHeader(out, method, false);
        StringJoiner arguments = new StringJoiner(", ");
        for (VariableElement parameter : method.getParameters()) {
            arguments.add(parameterName(method, parameter));
        }
        String call = "delegate." + method.getSimpleName() + "(" + arguments + ");";
        out.write(" {\n        " + (method.getReturnType().getKind() == TypeKind.VOID ? call : "return " + call) + "\n    }\n");
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
        out.write("    @Override\n    public " + (isAbstract ? "abstract " : "") + method.getReturnType() + " "
                + method.getSimpleName() + "(");
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
