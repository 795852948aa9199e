package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import javax.sql.DataSource;

/** Epoch fencing on an H2 in-memory database of its own. */
class H2EpochModeTest extends EpochModeContract {

    private static final DataSource DATABASE = H2.database();

    @Override
    DataSource raw() {
        return DATABASE;
    }

    @Override
    String lockEpochRowNowait() {
        return "SELECT fence FROM fencing_epochs WHERE lock_name = ? FOR UPDATE NOWAIT";
    }

    /** H2 keeps the epoch row locked by the statements that found it newer, until the transaction ends. */
    @Override
    boolean staleCheckLeavesEpochRowFree() {
        return false;
    }

    /** H2's {@code setReadOnly} is only a hint: its transactions still write. */
    @Override
    boolean readOnlyTransactions() {
        return false;
    }

    /** None: the analyzer cannot read H2's {@code SELECT .. FROM FINAL TABLE (INSERT ..)} (it refuses it). */
    @Override
    String returningInsert() {
        return null;
    }

    @Override
    java.util.List<String> statementsThatEndTheTransaction() {
        return java.util.List.of("CREATE TABLE epoch_ddl_probe (i INT)", "SET AUTOCOMMIT TRUE");
    }
}
