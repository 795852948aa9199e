package dev.fencing.internal.cli;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigKey;
import dev.fencing.internal.sql.Dialect;

import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;

/** {@code java -jar fencing-driver-<version>-cli.jar explain|demo|guard ...}; {@code --help} after a command explains it. */
public final class Main {

    /** What every usage line calls this jar: the file actually run, so that a line can be pasted back. */
    static final String JAR = jarName();

    private Main() {
    }

    private static String jarName() {
        try {
            Path location = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            String name = location.getFileName().toString();
            return name.endsWith(".jar") ? name : "fencing-driver-cli.jar";
        } catch (URISyntaxException | RuntimeException e) {
            return "fencing-driver-cli.jar";
        }
    }

    /** {@code --help}, {@code -h} or {@code help}: the usage goes to standard output and the command succeeds. */
    static boolean isHelp(String argument) {
        return argument.equals("--help") || argument.equals("-h") || argument.equals("help");
    }

    private static final String DEMO_USAGE = "usage: java -jar " + JAR + " demo [--jdbc URL] [--redis URI]";

    public static void main(String[] args) throws Exception {
        int status = run(args);
        if (status != 0) {
            System.exit(status);
        }
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0 || isHelp(args[0])) {
            PrintStream out = args.length == 0 ? System.err : System.out;
            out.println("usage: java -jar " + JAR + " explain|demo|guard [options]; --help after a command explains it");
            out.println(Guard.USAGE);
            out.println(DEMO_USAGE);
            Explain.printUsage(out);
            return args.length == 0 ? 2 : 0;
        }
        String command = args[0];
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        return switch (command) {
            case "explain" -> explain(rest);
            case "demo" -> demo(rest);
            case "guard" -> Guard.run(rest, System.out, System.err);
            default -> {
                System.err.println("unknown command '" + command + "'; expected explain, demo or guard");
                yield 2;
            }
        };
    }

    private static int demo(String[] args) throws Exception {
        String jdbcUrl = "jdbc:h2:mem:fencing-demo;DB_CLOSE_DELAY=-1";
        String redisUri = null;
        for (int i = 0; i < args.length; i++) {
            if (isHelp(args[i])) {
                System.out.println(DEMO_USAGE);
                return 0;
            }
            switch (args[i]) {
                case "--jdbc" -> {
                    if (i + 1 >= args.length) {
                        return demoUsage("--jdbc needs a JDBC URL");
                    }
                    jdbcUrl = args[++i];
                }
                case "--redis" -> {
                    if (i + 1 >= args.length) {
                        return demoUsage("--redis needs a Redis URI");
                    }
                    redisUri = args[++i];
                }
                default -> {
                    return demoUsage("unknown option '" + args[i] + "'");
                }
            }
        }
        Demo.Result result = new Demo(new DriverManagerDataSource(jdbcUrl), redisUri, System.out).run();
        return result.asExpected() ? 0 : 1;
    }

    private static int demoUsage(String problem) {
        System.err.println(problem);
        System.err.println(DEMO_USAGE);
        return 2;
    }

    private static int explain(String[] args) {
        if (args.length > 0 && isHelp(args[0])) {
            Explain.printUsage(System.out);
            return 0;
        }
        Properties properties = new Properties();
        Path file = null;
        Dialect dialect = Dialect.POSTGRESQL;
        StringBuilder sql = new StringBuilder();
        try {
            for (int i = 0; i < args.length; i++) {
                ConfigKey key = Explain.keyOfFlag(args[i]);
                if (key == ConfigKey.CONFIG) {
                    file = Path.of(args[++i]);
                } else if (key != null) {
                    properties.setProperty(ConfigKey.PREFIX + args[i].substring(2), args[++i]);
                } else if (args[i].equals("--dialect")) {
                    dialect = Dialect.valueOf(args[++i].toUpperCase(Locale.ROOT));
                } else {
                    sql.append(sql.length() == 0 ? "" : " ").append(args[i]);
                }
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            System.err.println("an option is missing its value");
            Explain.printUsage(System.err);
            return 2;
        } catch (IllegalArgumentException e) {
            System.err.println("unknown dialect; allowed: postgresql, h2, mariadb, generic");
            return 2;
        }
        if (sql.length() == 0) {
            Explain.printUsage(System.err);
            return 2;
        }
        FencingConfig config;
        try {
            Properties merged = new Properties();
            if (file != null) {
                merged.putAll(FencingConfig.load(file).toProperties());
            }
            merged.putAll(properties);
            config = FencingConfig.fromProperties(merged);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        System.out.print(Explain.explain(config, dialect, sql.toString()));
        return 0;
    }
}
