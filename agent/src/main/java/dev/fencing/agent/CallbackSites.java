package dev.fencing.agent;

import dev.fencing.agent.bootstrap.AgentBridge;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.OpenedClassReader;

import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import static net.bytebuddy.matcher.ElementMatchers.hasDescriptor;
import static net.bytebuddy.matcher.ElementMatchers.isPrivate;
import static net.bytebuddy.matcher.ElementMatchers.named;

/**
 * The pool's calls into the application's code: in a class of a known pool, every call through an
 * interface of the same pool whose parameters include a {@code java.sql.Connection} (Agroal's
 * {@code AgroalPoolInterceptor} and {@code AgroalDataSourceListener}, c3p0's
 * {@code ConnectionCustomizer} and {@code ConnectionTester}, Vibur's {@code Hook}s, UCP's
 * {@code ConnectionInitializationCallback}) becomes an {@code invokedynamic} whose bootstrap is
 * {@link AgentBridge#callback}: when the object called is the pool's own class, the call goes
 * through as it was; when it is the application's (or any class outside the pool's packages), each
 * connection argument is fenced first, as the handout rule fences a connection a pool's method
 * returns. A parameter declared as a subtype of {@code Connection}, which a fenced connection
 * cannot be, is refused instead. The call site keeps its stack shape, so no frame changes and the
 * class gains no member (retransformation allows it).
 */
final class CallbackSites extends AsmVisitorWrapper.AbstractBase {

    /** The parameter kinds handed to the bootstrap: one letter per parameter after the receiver. */
    static final char CONNECTION = 'C';
    static final char CONNECTION_SUBTYPE = 'S';
    static final char OTHER = '-';

    private static final Handle BOOTSTRAP = new Handle(Opcodes.H_INVOKESTATIC, Type.getInternalName(AgentBridge.class),
            "callback", MethodType.methodType(CallSite.class, MethodHandles.Lookup.class, String.class,
                    MethodType.class, MethodHandle.class, String.class).toMethodDescriptorString(), false);
    private static final String JDBC_CONNECTION = "java/sql/Connection";
    private static final int INVOKEDYNAMIC_VERSION = Opcodes.V1_7;
    /** The constant pool tag of {@code CONSTANT_InterfaceMethodref}. */
    private static final int INTERFACE_METHOD_REF = 11;

    /**
     * Whether the class file calls an interface method that takes a {@code ..Connection}: read
     * from its constant pool, so that the many classes of a pool that pass no connection on are
     * not rewritten at all.
     */
    static boolean present(byte[] classfile) {
        ClassReader reader = OpenedClassReader.of(classfile);
        char[] buffer = new char[reader.getMaxStringLength()];
        for (int item = 1; item < reader.getItemCount(); item++) {
            int offset = reader.getItem(item);
            if (offset > 0 && classfile[offset - 1] == INTERFACE_METHOD_REF) {
                int nameAndType = reader.getItem(reader.readUnsignedShort(offset + 2));
                String descriptor = reader.readUTF8(nameAndType + 2, buffer);
                int connection = descriptor.indexOf("Connection;");
                if (connection >= 0 && connection < descriptor.lastIndexOf(')')) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public ClassVisitor wrap(TypeDescription instrumentedType, ClassVisitor classVisitor,
                             Implementation.Context implementationContext, TypePool typePool,
                             FieldList<FieldDescription.InDefinedShape> fields, MethodList<?> methods,
                             int writerFlags, int readerFlags) {
        String pool = instrumentedType.getName();
        return new ClassVisitor(OpenedClassReader.ASM_API, classVisitor) {
            private int version;

            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                this.version = version & 0xFFFF;
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor visitor = super.visitMethod(access, name, descriptor, signature, exceptions);
                return new MethodVisitor(OpenedClassReader.ASM_API, visitor) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String method, String descriptor,
                                                boolean isInterface) {
                        String kinds = opcode == Opcodes.INVOKEINTERFACE && Weaver.samePool(pool, owner.replace('/', '.'))
                                && overridable(owner, method, descriptor, typePool) ? kinds(descriptor, typePool) : null;
                        if (kinds == null) {
                            super.visitMethodInsn(opcode, owner, method, descriptor, isInterface);
                            return;
                        }
                        if (version < INVOKEDYNAMIC_VERSION) {
                            // without invokedynamic the argument cannot be replaced in place: refuse every connection
                            throw new IllegalStateException(pool + " passes a connection to " + owner.replace('/', '.')
                                    + "." + method + " in a class file older than Java 7");
                        }
                        super.visitInvokeDynamicInsn(method, "(L" + owner + ";" + descriptor.substring(1), BOOTSTRAP,
                                new Handle(Opcodes.H_INVOKEINTERFACE, owner, method, descriptor, true), kinds);
                    }
                };
            }
        };
    }

    /**
     * One kind per parameter of {@code descriptor}, or null when none is a connection. A type
     * that cannot be resolved is taken for no connection: a call naming it cannot link either.
     */
    static String kinds(String descriptor, TypePool typePool) {
        Type[] parameters = Type.getArgumentTypes(descriptor);
        StringBuilder kinds = new StringBuilder(parameters.length);
        boolean any = false;
        for (Type parameter : parameters) {
            char kind = OTHER;
            if (parameter.getSort() == Type.OBJECT) {
                String name = parameter.getInternalName();
                if (name.equals(JDBC_CONNECTION)) {
                    kind = CONNECTION;
                } else if (name.endsWith("Connection") && isConnectionSubtype(parameter.getClassName(), typePool)) {
                    kind = CONNECTION_SUBTYPE;
                }
            }
            any |= kind != OTHER;
            kinds.append(kind);
        }
        return any ? kinds.toString() : null;
    }

    /**
     * Whether the interface method can be implemented by another class: not a private method of
     * the interface (called by {@code invokeinterface} from its nest since Java 11). An interface
     * that cannot be resolved is taken for none: a call naming it cannot link.
     */
    static boolean overridable(String owner, String method, String descriptor, TypePool typePool) {
        TypePool.Resolution resolution = typePool.describe(owner.replace('/', '.'));
        if (!resolution.isResolved()) {
            return false;
        }
        try {
            return resolution.resolve().getDeclaredMethods()
                    .filter(named(method).and(hasDescriptor(descriptor)).and(isPrivate())).isEmpty();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static boolean isConnectionSubtype(String name, TypePool typePool) {
        TypePool.Resolution resolution = typePool.describe(name);
        if (!resolution.isResolved()) {
            return false;
        }
        try {
            return resolution.resolve().isAssignableTo(java.sql.Connection.class);
        } catch (RuntimeException | LinkageError e) {
            return false; // its hierarchy cannot be read: no class of it can be loaded to be passed
        }
    }
}
