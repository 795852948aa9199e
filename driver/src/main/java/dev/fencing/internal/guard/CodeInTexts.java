package dev.fencing.internal.guard;

import dev.fencing.internal.sql.Dialect;
import dev.fencing.internal.sql.FenceSlot;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether PostgreSQL texts sent without a fence may run code ({@link FenceSlot#mayRunCode}), read
 * once per text for all connections of one data source (texts that name no fenced table never
 * reach the analyzer's plan cache, and a connection lives only as long as one hold). Bounded: past
 * {@link #CAPACITY} texts it starts again empty, which costs a re-read, never a wrong answer.
 */
public final class CodeInTexts {

    private static final int CAPACITY = 4096;

    private final Map<String, Boolean> readings = new ConcurrentHashMap<>();

    public boolean mayRunCode(String sql) {
        Boolean known = readings.get(sql);
        if (known != null) {
            return known;
        }
        boolean code = FenceSlot.mayRunCode(sql, Dialect.POSTGRESQL);
        if (readings.size() >= CAPACITY) {
            readings.clear();
        }
        readings.put(sql, code);
        return code;
    }
}
