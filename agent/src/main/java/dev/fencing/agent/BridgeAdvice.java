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
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.OpenedClassReader;

import java.util.Set;

/**
 * Instruments the compiler's bridge methods {@code Connection connect(String, Properties)} and
 * {@code Connection getConnection(..)} that sit over a covariant override (MariaDB's
 * {@code Driver.connect} returns {@code org.mariadb.jdbc.Connection}). Byte Buddy's advice never
 * visits bridge methods, yet callers through the JDBC interfaces ({@code DriverManager}, pools)
 * enter there: the bridge is where a fenced connection can be returned. It gets the same
 * enter/exit calls as {@link Advices.DriverConnect}, written with ASM:
 * <pre>
 *   AgentBridge.enter();
 *   try { return (Connection) AgentBridge.bridgeReturned(&lt;original call&gt;, this, url-or-null); }
 *   catch (Throwable t) { AgentBridge.leave(); throw t; }
 * </pre>
 * ({@code leave} after a failing {@code bridgeReturned} finds the depth at zero already and
 * leaves it there.)
 */
final class BridgeAdvice extends AsmVisitorWrapper.AbstractBase {

    private static final String BRIDGE = Type.getInternalName(AgentBridge.class);
    private static final Set<String> TARGETS = Set.of(
            "connect(Ljava/lang/String;Ljava/util/Properties;)Ljava/sql/Connection;",
            "getConnection()Ljava/sql/Connection;",
            "getConnection(Ljava/lang/String;Ljava/lang/String;)Ljava/sql/Connection;",
            "build()Ljava/sql/Connection;");

    @Override
    public int mergeReader(int flags) {
        return flags | ClassReader.EXPAND_FRAMES;
    }

    @Override
    public ClassVisitor wrap(TypeDescription instrumentedType, ClassVisitor classVisitor,
                             Implementation.Context implementationContext, TypePool typePool,
                             FieldList<FieldDescription.InDefinedShape> fields, MethodList<?> methods,
                             int writerFlags, int readerFlags) {
        String owner = instrumentedType.getInternalName();
        return new ClassVisitor(OpenedClassReader.ASM_API, classVisitor) {
            private boolean framesAllowed;

            @Override
            public void visit(int version, int access, String name, String signature, String superName,
                              String[] interfaces) {
                framesAllowed = (version & 0xFFFF) >= Opcodes.V1_6;
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                MethodVisitor visitor = super.visitMethod(access, name, descriptor, signature, exceptions);
                boolean bridge = (access & Opcodes.ACC_BRIDGE) != 0 && (access & Opcodes.ACC_STATIC) == 0
                        && (access & Opcodes.ACC_ABSTRACT) == 0;
                if (!bridge || !TARGETS.contains(name + descriptor) || visitor == null) {
                    return visitor;
                }
                return new BridgeMethod(visitor, owner, name.equals("connect"), descriptor, framesAllowed);
            }
        };
    }

    private static final class BridgeMethod extends MethodVisitor {
        private final String owner;
        private final boolean hasUrl;
        private final String descriptor;
        private final boolean framesAllowed;
        private final Label start = new Label();
        private final Label end = new Label();
        private final Label handler = new Label();

        BridgeMethod(MethodVisitor visitor, String owner, boolean hasUrl, String descriptor, boolean framesAllowed) {
            super(OpenedClassReader.ASM_API, visitor);
            this.owner = owner;
            this.hasUrl = hasUrl;
            this.descriptor = descriptor;
            this.framesAllowed = framesAllowed;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            super.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
            super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "enter", "()V", false);
            super.visitLabel(start);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.ARETURN) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
                if (hasUrl) {
                    super.visitVarInsn(Opcodes.ALOAD, 1);
                } else {
                    super.visitInsn(Opcodes.ACONST_NULL);
                }
                super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "bridgeReturned",
                        "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/Object;", false);
                super.visitTypeInsn(Opcodes.CHECKCAST, "java/sql/Connection");
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            super.visitLabel(end);
            super.visitLabel(handler);
            if (framesAllowed) {
                Type[] arguments = Type.getArgumentTypes(descriptor);
                Object[] locals = new Object[arguments.length + 1];
                locals[0] = owner;
                for (int i = 0; i < arguments.length; i++) {
                    locals[i + 1] = arguments[i].getInternalName();
                }
                super.visitFrame(Opcodes.F_NEW, locals.length, locals, 1, new Object[] {"java/lang/Throwable"});
            }
            super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "leave", "()V", false);
            super.visitInsn(Opcodes.ATHROW);
            super.visitMaxs(maxStack + 4, maxLocals);
        }
    }
}
