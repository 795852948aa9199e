package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import javax.sql.DataSource;

/** The read-modify-write pause torture on H2 (in memory), epoch mode against row mode. */
class H2EpochTortureTest extends EpochTortureContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    @Override
    String label() {
        return "H2";
    }
}
