package dev.fencing.agent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a class file may matter for, read from its raw bytes before anything else looks at it:
 * the agent sees every class the JVM loads, and only a handful matter. It walks the constant pool
 * (for the annotation descriptor {@code Ldev/fencing/Fenced;} and the method names of
 * {@link #METHOD_NAMES}), then the method table: only a class that <em>declares</em> a method of
 * such a name can be woven (callers of {@code getConnection} are not candidates).
 */
final class ClassFileFilter {

    static final int CONNECT = 1;
    static final int GET_CONNECTION = 2;
    static final int FENCED = 4;
    /** Declares {@code getXAConnection}, {@code getPooledConnection}, {@code connectionClosed} or {@code connectionErrorOccurred}. */
    static final int POOLED = 8;
    /** Declares {@code build} and names a JDBC connection builder interface. */
    static final int BUILDER = 16;
    private static final int ALL = CONNECT | GET_CONNECTION | FENCED | POOLED | BUILDER;

    /**
     * The method names that make a class a candidate when it declares one, and the flag each
     * sets: {@code getXAConnection} / {@code getPooledConnection} (XA and pooled data sources) and
     * {@code connectionClosed} / {@code connectionErrorOccurred} (a pool's listener on its pooled
     * connections, which takes their connection back) count as {@link #POOLED}.
     */
    private static final byte[][] METHOD_NAMES = ascii("connect", "getConnection", "getXAConnection",
            "getPooledConnection", "connectionClosed", "connectionErrorOccurred", "build");
    private static final int[] METHOD_FLAGS = {CONNECT, GET_CONNECTION, POOLED, POOLED, POOLED, POOLED, BUILDER};
    /**
     * {@code build} is a common name: it counts only in a class whose constant pool names one of
     * JDBC 4.3's connection builder interfaces (as the classes implementing them do).
     */
    private static final byte[][] BUILDER_INTERFACES = ascii("java/sql/ConnectionBuilder",
            "javax/sql/PooledConnectionBuilder", "javax/sql/XAConnectionBuilder");
    private static final byte[] FENCED_DESCRIPTOR = "Ldev/fencing/Fenced;".getBytes(StandardCharsets.US_ASCII);

    private ClassFileFilter() {
    }

    /**
     * The flags of the constants found; every flag when the class file cannot be read (a
     * constant pool entry of a kind this method does not know: the closer checks decide).
     */
    static int scan(byte[] classfile) {
        if (classfile == null) {
            return 0;
        }
        try {
            return read(classfile);
        } catch (ArrayIndexOutOfBoundsException e) {
            return ALL;
        }
    }

    private static int read(byte[] classfile) {
        if (classfile.length < 10 || u4(classfile, 0) != 0xCAFEBABE) {
            return ALL;
        }
        int flags = 0;
        int count = u2(classfile, 8);
        // the constant pool index of each method name of METHOD_NAMES, -1 while not found
        int[] nameIndexes = new int[METHOD_NAMES.length];
        java.util.Arrays.fill(nameIndexes, -1);
        boolean anyName = false;
        boolean builderInterface = false;
        int at = 10;
        for (int index = 1; index < count; index++) {
            int tag = classfile[at] & 0xFF;
            switch (tag) {
                case 1 -> { // Utf8
                    int length = u2(classfile, at + 1);
                    if (length == FENCED_DESCRIPTOR.length && equal(classfile, at + 3, FENCED_DESCRIPTOR)) {
                        flags |= FENCED;
                    } else {
                        for (byte[] builder : BUILDER_INTERFACES) {
                            if (length == builder.length && equal(classfile, at + 3, builder)) {
                                builderInterface = true;
                            }
                        }
                        for (int n = 0; n < METHOD_NAMES.length; n++) {
                            if (length == METHOD_NAMES[n].length && equal(classfile, at + 3, METHOD_NAMES[n])) {
                                nameIndexes[n] = index;
                                anyName = true;
                                break;
                            }
                        }
                    }
                    at += 3 + length;
                }
                case 3, 4 -> at += 5; // Integer, Float
                case 5, 6 -> { // Long, Double: two slots
                    at += 9;
                    index++;
                }
                case 7, 8, 16, 19, 20 -> at += 3; // Class, String, MethodType, Module, Package
                case 9, 10, 11, 12, 17, 18 -> at += 5; // refs, NameAndType, Dynamic, InvokeDynamic
                case 15 -> at += 4; // MethodHandle
                default -> {
                    return ALL;
                }
            }
        }
        if (!anyName) {
            return flags;
        }
        at += 6; // access_flags, this_class, super_class
        at += 2 + 2 * u2(classfile, at); // interfaces
        at = skipMembers(classfile, at); // fields
        int methods = u2(classfile, at);
        at += 2;
        for (int i = 0; i < methods; i++) {
            int name = u2(classfile, at + 2);
            for (int n = 0; n < nameIndexes.length; n++) {
                if (name == nameIndexes[n]) {
                    flags |= METHOD_FLAGS[n] != BUILDER || builderInterface ? METHOD_FLAGS[n] : 0;
                }
            }
            at = skipAttributes(classfile, at + 6);
        }
        return flags;
    }

    /**
     * The classes named by the {@code NestMembers} attribute of a class file (internal names):
     * its nested and anonymous classes, which must be loaded by the same class loader.
     */
    static List<String> nestMembers(byte[] classfile) {
        int count = u2(classfile, 8);
        int[] offsets = new int[count];
        int at = 10;
        for (int index = 1; index < count; index++) {
            offsets[index] = at;
            int tag = classfile[at] & 0xFF;
            switch (tag) {
                case 1 -> at += 3 + u2(classfile, at + 1);
                case 3, 4 -> at += 5;
                case 5, 6 -> {
                    at += 9;
                    index++;
                }
                case 7, 8, 16, 19, 20 -> at += 3;
                case 9, 10, 11, 12, 17, 18 -> at += 5;
                case 15 -> at += 4;
                default -> throw new IllegalArgumentException("unknown constant pool tag " + tag);
            }
        }
        at += 6;
        at += 2 + 2 * u2(classfile, at);
        at = skipMembers(classfile, at); // fields
        at = skipMembers(classfile, at); // methods
        int attributes = u2(classfile, at);
        at += 2;
        List<String> members = new ArrayList<>();
        for (int i = 0; i < attributes; i++) {
            String name = utf8(classfile, offsets[u2(classfile, at)]);
            int length = u4(classfile, at + 2);
            if (name.equals("NestMembers")) {
                int classes = u2(classfile, at + 6);
                for (int c = 0; c < classes; c++) {
                    int classEntry = offsets[u2(classfile, at + 8 + 2 * c)];
                    members.add(utf8(classfile, offsets[u2(classfile, classEntry + 1)]));
                }
            }
            at += 6 + length;
        }
        return members;
    }

    private static String utf8(byte[] classfile, int entry) {
        return new String(classfile, entry + 3, u2(classfile, entry + 1), StandardCharsets.UTF_8);
    }

    /** Skips a fields (or methods) table: count, then each member's 6 bytes and attributes. */
    private static int skipMembers(byte[] classfile, int at) {
        int members = u2(classfile, at);
        at += 2;
        for (int i = 0; i < members; i++) {
            at = skipAttributes(classfile, at + 6);
        }
        return at;
    }

    private static int skipAttributes(byte[] classfile, int at) {
        int attributes = u2(classfile, at);
        at += 2;
        for (int i = 0; i < attributes; i++) {
            at += 6 + u4(classfile, at + 2);
        }
        return at;
    }

    private static byte[][] ascii(String... names) {
        byte[][] bytes = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            bytes[i] = names[i].getBytes(StandardCharsets.US_ASCII);
        }
        return bytes;
    }

    private static boolean equal(byte[] classfile, int start, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (classfile[start + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static int u2(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    private static int u4(byte[] b, int at) {
        return u2(b, at) << 16 | u2(b, at + 2);
    }
}
