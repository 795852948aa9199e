package dev.fencing.jdbc;

import dev.fencing.internal.config.ConfigSources;
import dev.fencing.internal.jdbc.ConnectionContext;
import dev.fencing.internal.config.FencingUrl;
import dev.fencing.internal.jdbc.Listeners;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.ConfigKey;
import dev.fencing.FencingException;
import dev.fencing.events.FencingListener;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The {@code jdbc:fencing:} driver: {@code jdbc:fencing:<rest>} opens {@code jdbc:<rest>} with the
 * driver registered for it and returns a connection whose writes to fenced tables carry the
 * fencing check (see {@link FencingDataSource}).
 *
 * <p>Configuration, the first source that sets a key wins:
 * <ol>
 *   <li>{@code fencing.*} query parameters of the URL
 *       ({@code jdbc:fencing:postgresql://db/app?sslmode=require&fencing.tables=orders});</li>
 *   <li>{@code fencing.*} connection properties;</li>
 *   <li>the properties file named by {@code fencing.config} (connection property, system
 *       property, or environment variable {@code FENCING_CONFIG});</li>
 *   <li>otherwise the classpath resource {@code fencing.properties}.</li>
 * </ol>
 * The {@code fencing.*} keys are removed before the delegate driver sees the URL and properties.
 * An invalid configuration fails the connection with a {@link FencingException} (SQLState
 * {@code ZF000}) naming the key; no unfenced connection is ever returned.
 *
 * <p>Registered with {@link DriverManager} when the class is loaded (and found through
 * {@code META-INF/services/java.sql.Driver}); {@link #deregister()} removes it.
 */
public final class FencingDriver implements Driver {

    private static final System.Logger LOG = System.getLogger(FencingDriver.class.getName());

    private static final FencingDriver INSTANCE = new FencingDriver();
    private static boolean registered;

    static {
        try {
            register();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot register " + FencingDriver.class.getName(), e);
        }
    }

    /** For {@link java.util.ServiceLoader}; use {@link DriverManager}, not this constructor. */
    public FencingDriver() {
    }

    /** Registers the driver with {@link DriverManager}, unless it is registered already. */
    public static synchronized void register() throws SQLException {
        if (!registered) {
            DriverManager.registerDriver(INSTANCE);
            registered = true;
        }
    }

    /** Removes the driver from {@link DriverManager} (for example when a web application stops). */
    public static synchronized void deregister() throws SQLException {
        if (registered) {
            DriverManager.deregisterDriver(INSTANCE);
            registered = false;
        }
    }

    /** True while the driver is registered with {@link DriverManager}. */
    public static synchronized boolean isRegistered() {
        return registered;
    }

    @Override
    public boolean acceptsURL(String url) {
        return FencingUrl.accepts(url);
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        FencingUrl target = parse(url);
        Properties delegateInfo = new Properties();
        Properties fencing = new Properties();
        split(info, delegateInfo, fencing);
        fencing.putAll(target.fencingParameters());
        FencingConfig config = resolve(fencing);
        Driver driver = delegateDriver(target.delegateUrl());
        Connection connection = driver.connect(target.delegateUrl(), delegateInfo);
        if (connection == null) {
            throw new SQLException("the driver " + driver.getClass().getName() + " did not accept a "
                    + FencingUrl.scheme(target.delegateUrl()) + " URL it claimed to accept", "08001");
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "fencing a " + FencingUrl.scheme(target.delegateUrl())
                + " connection with " + config);
        return ConnectionContext.shared(config).fence(connection);
    }

    /**
     * Adds a process-wide listener (metrics, see {@link FencingListener}): it hears the statements
     * of every connection of the {@code jdbc:fencing:} driver and of the fencing agent in this class
     * loader. A {@link FencingDataSource}'s connections are heard by its own listeners instead.
     */
    public static void addListener(FencingListener listener) {
        Listeners.PROCESS_WIDE.add(listener);
    }

    /** Removes a listener added with {@link #addListener}; false when it was not there. */
    public static boolean removeListener(FencingListener listener) {
        return Listeners.PROCESS_WIDE.remove(listener);
    }

    private static FencingUrl parse(String url) throws FencingException {
        try {
            return FencingUrl.parse(url);
        } catch (IllegalArgumentException e) {
            throw new FencingException("invalid jdbc:fencing: URL: " + e.getMessage(), e);
        }
    }

    /** Copies {@code info} into the delegate's properties and ours, by key. */
    private static void split(Properties info, Properties delegateInfo, Properties fencing) {
        if (info == null) {
            return;
        }
        for (String key : info.stringPropertyNames()) {
            (ConfigSources.isFencingKey(key) ? fencing : delegateInfo).setProperty(key, info.getProperty(key));
        }
        for (Map.Entry<Object, Object> entry : info.entrySet()) {
            // values that are not strings (some drivers take objects): the delegate's, unless the key is ours
            if (!(entry.getValue() instanceof String) && !(entry.getKey() instanceof String key
                    && ConfigSources.isFencingKey(key))) {
                delegateInfo.put(entry.getKey(), entry.getValue());
            }
        }
    }

    private static FencingConfig resolve(Properties fencing) throws FencingException {
        try {
            return ConfigSources.standard().resolve(fencing);
        } catch (IllegalArgumentException e) {
            throw new FencingException("invalid fencing configuration: " + e.getMessage(), e);
        }
    }

    /** The registered driver for {@code url}, never this one. */
    private static Driver delegateDriver(String url) throws SQLException {
        if (FencingUrl.accepts(url)) {
            throw new FencingException("a jdbc:fencing: URL cannot wrap another jdbc:fencing: URL");
        }
        Driver driver = findDelegate(url);
        if (driver != null) {
            return driver;
        }
        throw new SQLException("no JDBC driver for " + FencingUrl.scheme(url)
                + " is registered: put the database's driver on the class path", "08001");
    }

    private static Driver findDelegate(String url) throws SQLException {
        Enumeration<Driver> drivers = DriverManager.getDrivers();
        while (drivers.hasMoreElements()) {
            Driver driver = drivers.nextElement();
            if (!(driver instanceof FencingDriver) && driver.acceptsURL(url)) {
                return driver;
            }
        }
        return null;
    }

    /** The fencing keys (with their current values and choices), then the delegate driver's properties. */
    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        Properties delegateInfo = new Properties();
        Properties fencing = new Properties();
        split(info, delegateInfo, fencing);
        List<DriverPropertyInfo> properties = new ArrayList<>();
        FencingUrl target = acceptsURL(url) ? parse(url) : null;
        if (target != null) {
            fencing.putAll(target.fencingParameters());
        }
        for (ConfigKey key : ConfigKey.values()) {
            properties.add(property(fencing, key));
        }
        Driver driver = target == null || FencingUrl.accepts(target.delegateUrl()) ? null
                : findDelegate(target.delegateUrl());
        if (driver != null) {
            properties.addAll(List.of(driver.getPropertyInfo(target.delegateUrl(), delegateInfo)));
        }
        return properties.toArray(new DriverPropertyInfo[0]);
    }

    private static DriverPropertyInfo property(Properties values, ConfigKey key) {
        DriverPropertyInfo property = new DriverPropertyInfo(key.key(), values.getProperty(key.key(), key.defaultValue()));
        property.required = key.required();
        property.description = key.description() + " (allowed: " + key.allowed() + ")";
        property.choices = key.choices().isEmpty() ? null : key.choices().toArray(new String[0]);
        return property;
    }

    @Override
    public int getMajorVersion() {
        return 0;
    }

    @Override
    public int getMinorVersion() {
        return 1;
    }

    /** False: compliance is the delegate driver's to claim. */
    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("dev.fencing");
    }
}
