package dev.fencing.bench.jdbc;

import com.p6spy.engine.logging.Category;
import com.p6spy.engine.spy.appender.P6Logger;

/**
 * A p6spy appender that writes nothing and enables no category: p6spy then wraps and times every
 * call but formats and writes no log line. Its default appender (FileLogger, spy.log) would add
 * file I/O to every statement. Named by {@code appender} in {@code spy.properties}.
 */
public final class NoopP6Logger implements P6Logger {

    @Override
    public void logSQL(int connectionId, String now, long elapsed, Category category, String prepared, String sql,
                       String url) {
        // nothing
    }

    @Override
    public void logException(Exception e) {
        // nothing
    }

    @Override
    public void logText(String text) {
        // nothing
    }

    @Override
    public boolean isCategoryEnabled(Category category) {
        return false;
    }
}
