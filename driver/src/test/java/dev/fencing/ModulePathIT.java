package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packaged driver jar on a module path, as an application built of modules receives it
 * (failsafe, after {@code package}): the jar and H2's are resolved into a {@link ModuleLayer} of
 * their own, and the driver is used there only through what its module exports. Its descriptor
 * exports exactly the contract's packages, plus the internal ones named to the project's own
 * modules; it requires nothing at run time but {@code java.sql} and {@code java.logging}; the
 * relocated JSqlParser is part of the module (its packages are in the jar but in no descriptor
 * list the JDK would trust instead); and fenced writes, each parsed by that JSqlParser, run
 * through it, as does the H2 guard's trigger, which H2 instantiates by name.
 */
class ModulePathIT {

    private static final String DRIVER = "dev.fencing.driver";
    private static final String H2 = "com.h2database";

    /** CONTRACT.md, "Build and coordinates": the driver's public packages. */
    private static final Set<String> CONTRACT_PACKAGES = Set.of(
            "dev.fencing", "dev.fencing.jdbc", "dev.fencing.lock", "dev.fencing.lock.spi", "dev.fencing.events");

    /** The internal packages that other modules of this project compile against, and those modules (docs/api.md). */
    private static final Map<String, Set<String>> QUALIFIED_EXPORTS = Map.of(
            "dev.fencing.internal.config", Set.of("dev.fencing.lock.etcd", "dev.fencing.lock.zookeeper", "dev.fencing.spring"),
            "dev.fencing.internal.guard", Set.of("dev.fencing.spring"),
            "dev.fencing.internal.sql", Set.of("dev.fencing.spring"));

    private static ModuleLayer layer;

    @BeforeAll
    static void resolveThePackagedJarOnAModulePath() throws Exception {
        Path driver = Path.of(System.getProperty("fencing.driver.jar", "(unset)"));
        assertThat(driver).as("fencing.driver.jar, written by package (run the tests with verify)").isRegularFile();
        Path h2 = Path.of(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Configuration modules = ModuleLayer.boot().configuration()
                .resolve(ModuleFinder.of(driver, h2), ModuleFinder.of(), Set.of(DRIVER, H2));
        // the platform loader as parent: nothing of this JVM's class path (the driver's classes, the
        // unrelocated JSqlParser the driver compiles against) can stand in for the jar's
        layer = ModuleLayer.boot().defineModulesWithOneLoader(modules, ClassLoader.getPlatformClassLoader());
    }

    private static Module driverModule() {
        return layer.findModule(DRIVER).orElseThrow();
    }

    @Test
    void theModuleExportsTheContractsPackagesAndNamesEachInternalOneToItsUsers() {
        ModuleDescriptor descriptor = driverModule().getDescriptor();
        assertThat(descriptor.isAutomatic()).as("a module-info, not an Automatic-Module-Name").isFalse();
        Set<String> unqualified = new TreeSet<>();
        Map<String, Set<String>> qualified = new TreeMap<>();
        for (ModuleDescriptor.Exports exported : descriptor.exports()) {
            if (exported.isQualified()) {
                qualified.put(exported.source(), exported.targets());
            } else {
                unqualified.add(exported.source());
            }
        }
        assertThat(unqualified).containsExactlyInAnyOrderElementsOf(CONTRACT_PACKAGES)
                .noneMatch(name -> name.startsWith("dev.fencing.internal") || name.startsWith("dev.fencing.shaded"));
        assertThat(qualified).isEqualTo(QUALIFIED_EXPORTS);
        assertThat(qualified.values()).allSatisfy(targets -> assertThat(targets).allMatch(name -> name.startsWith("dev.fencing.")));

        assertThat(descriptor.opens()).as("reflection only: H2 creates the guard's trigger by its class name")
                .singleElement().satisfies(opened -> {
                    assertThat(opened.source()).isEqualTo("dev.fencing.internal.guard");
                    assertThat(opened.targets()).containsExactly(H2);
                });
        Set<String> requiredAtRunTime = new TreeSet<>();
        for (ModuleDescriptor.Requires required : descriptor.requires()) {
            if (!required.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
                requiredAtRunTime.add(required.name());
            }
        }
        assertThat(requiredAtRunTime).containsExactlyInAnyOrder("java.base", "java.sql", "java.logging");
    }

    @Test
    void theRelocatedJSqlParserIsPartOfTheModuleAndNotExported() throws Exception {
        Module module = driverModule();
        assertThat(module.getPackages())
                .contains("dev.fencing.shaded.jsqlparser.parser", "dev.fencing.shaded.jsqlparser.statement.update")
                .noneMatch(name -> name.startsWith("net.sf.jsqlparser"));
        assertThat(module.isExported("dev.fencing.shaded.jsqlparser.parser")).isFalse();
        Class<?> parser = layer.findLoader(DRIVER).loadClass("dev.fencing.shaded.jsqlparser.parser.CCJSqlParser");
        assertThat(parser.getModule()).isSameAs(module);
    }

    @Test
    void fencedWritesRunThroughTheModule() throws Exception {
        DataSource raw = h2("fenced_writes");
        createOrderOne(raw);
        Class<?> dataSourceType = driverClass("dev.fencing.jdbc.FencingDataSource");
        assertThat(dataSourceType.getModule()).isSameAs(driverModule());
        Object config = config("orders");
        DataSource fenced = (DataSource) dataSourceType.getConstructor(DataSource.class, configType())
                .newInstance(raw, config);
        String pay = "UPDATE orders SET status = 'paid' WHERE id = 1";

        SQLException unfenced = refusal(fenced, pay);
        assertThat(unfenced.getClass().getName()).isEqualTo("dev.fencing.MissingFenceException");
        assertThat(unfenced.getClass().getModule()).isSameAs(driverModule());

        try (AutoCloseable scope = enter(7)) {
            assertThat(update(fenced, pay)).isEqualTo(1);
        }
        try (AutoCloseable scope = enter(6)) {
            SQLException stale = refusal(fenced, pay);
            assertThat(stale.getClass().getName()).isEqualTo("dev.fencing.StaleFenceException");
        }
        assertThat(fenceOfOrderOne(raw)).isEqualTo(7);
    }

    @Test
    void h2CreatesTheGuardsTriggerInsideTheModule() throws Exception {
        DataSource raw = h2("guard");
        createOrderOne(raw);
        driverClass("dev.fencing.jdbc.DatabaseGuard").getMethod("install", DataSource.class, configType())
                .invoke(null, raw, config("orders"));

        SQLException refused = refusal(raw, "UPDATE orders SET status = 'paid' WHERE id = 1");
        assertThat(refused.getSQLState()).as("%s", refused).isEqualTo("ZF002");
    }

    @Test
    void theJdbcDriverIsProvidedAsAService() {
        assertThat(ServiceLoader.load(layer, Driver.class).stream())
                .filteredOn(provider -> provider.type().getName().equals("dev.fencing.jdbc.FencingDriver"))
                .singleElement().satisfies(provider -> {
                    assertThat(provider.type().getModule()).isSameAs(driverModule());
                    assertThat(provider.get().acceptsURL("jdbc:fencing:h2:mem:any")).isTrue();
                });
    }

    private static Class<?> driverClass(String name) throws ClassNotFoundException {
        return Class.forName(name, true, layer.findLoader(DRIVER));
    }

    private static DataSource h2(String database) throws Exception {
        DataSource h2 = (DataSource) Class.forName("org.h2.jdbcx.JdbcDataSource", true, layer.findLoader(H2))
                .getConstructor().newInstance();
        h2.getClass().getMethod("setURL", String.class).invoke(h2, "jdbc:h2:mem:module_path_" + database + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    private static Object config(String tables) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("fencing.tables", tables);
        return configType().getMethod("fromProperties", Properties.class).invoke(null, properties);
    }

    private static Class<?> configType() throws ClassNotFoundException {
        return driverClass("dev.fencing.FencingConfig");
    }

    private static AutoCloseable enter(long token) throws Exception {
        Method enter = driverClass("dev.fencing.Fence").getMethod("enter", long.class);
        try {
            return (AutoCloseable) enter.invoke(null, token);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    private static int update(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            return statement.executeUpdate(sql);
        }
    }

    private static SQLException refusal(DataSource dataSource, String sql) {
        SQLException refused = catchThrowableOfType(SQLException.class, () -> update(dataSource, sql));
        assertThat((Throwable) refused).as("refused: %s", sql).isNotNull();
        return refused;
    }

    private static void createOrderOne(DataSource raw) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO orders (id, status) VALUES (1, 'pending')");
        }
    }

    private static long fenceOfOrderOne(DataSource raw) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT last_fence FROM orders WHERE id = 1")) {
            assertThat(row.next()).isTrue();
            return row.getLong(1);
        }
    }
}
