package dev.fencing.internal.diagnosis;

import dev.fencing.FencingConfig;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What the zero-row diagnosis needs of a fenced connection: the driver's connection, to run its
 * query in the write's own transaction, and the configuration. A fenced connection hands one to
 * the pipeline only; the driver's connection is not reachable from the fenced connection itself,
 * so an application that unwraps to it still cannot get the raw connection.
 */
public interface DiagnosedConnection {

    /** The driver's connection, while the fenced one is open; else an SQLException. */
    Connection database() throws SQLException;

    FencingConfig config();
}
