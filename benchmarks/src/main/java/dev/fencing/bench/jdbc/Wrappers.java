package dev.fencing.bench.jdbc;

import com.p6spy.engine.spy.P6DataSource;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import net.ttddyy.dsproxy.support.ProxyDataSourceBuilder;

import javax.sql.DataSource;

/** The JDBC layers compared, each over the same delegate data source. */
public enum Wrappers {
    /** The delegate itself. */
    RAW,
    /** fencing-jdbc: every write to a fenced table gets the check spliced in and the fence bound. */
    FENCING,
    /** p6spy 3.9.1 with its default modules and a no-op appender (see spy.properties). */
    P6SPY,
    /** datasource-proxy 1.10, no listeners (JDK dynamic proxies). */
    DATASOURCE_PROXY;

    public DataSource wrap(DataSource delegate, String... fencedTables) {
        return switch (this) {
            case RAW -> delegate;
            case FENCING -> new FencingDataSource(delegate, FencingConfig.builder().tables(fencedTables).build());
            case P6SPY -> new P6DataSource(delegate);
            case DATASOURCE_PROXY -> ProxyDataSourceBuilder.create(delegate).name("bench").build();
        };
    }
}
