package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Fence;

import java.sql.BatchUpdateException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.jdbc.support.SQLStateSQLExceptionTranslator;

/**
 * The SQLStates alone, as the database guard's triggers raise them when no driver exception type
 * carries them (a pool or a batch wrapping them), are translated as well.
 */
class FencingExceptionTranslatorTest {

    private final SQLExceptionTranslator translator = new FencingExceptionTranslator(new SQLStateSQLExceptionTranslator());

    @Test
    @SuppressWarnings("try") // the fence scope is held, not used
    void aTriggersStaleStateKeepsTheThreadsFenceAsTheAttemptedOne() {
        try (Fence.Scope scope = Fence.enter(41)) {
            DataAccessException translated = translator.translate("pay", "UPDATE orders ..",
                    new SQLException("fence 41 is older than 42", "ZF001"));
            assertThat(translated).isInstanceOfSatisfying(StaleFenceDataAccessException.class, stale -> {
                assertThat(stale.getAttemptedFence()).isEqualTo(41);
                assertThat(stale.getCurrentFence()).isEmpty();
                assertThat(stale.getMessage()).contains("pay").contains("UPDATE orders ..").contains("older than 42");
            });
        }
    }

    @Test
    void statesInsideABatchOrACauseAreFound() {
        BatchUpdateException batch = new BatchUpdateException("batch failed", "42000", 0, new int[0], null);
        batch.setNextException(new SQLException("no fence in this session", "ZF002"));
        assertThat(translator.translate("batch", null, batch)).isInstanceOf(MissingFenceDataAccessException.class);

        SQLException wrapped = new SQLException("pool", "08000", new SQLException("cannot carry the check", "ZF003"));
        assertThat(translator.translate("t", null, wrapped)).isInstanceOf(UnfenceableStatementDataAccessException.class);
        assertThat(translator.translate("t", null, new SQLException("other", "ZF000")))
                .isExactlyInstanceOf(FencingDataAccessException.class);
    }

    @Test
    void otherErrorsGoToTheTranslatorItWraps() {
        SQLExceptionTranslator fallback = (task, sql, ex) -> new UncategorizedSQLException(task, sql, ex);
        assertThat(new FencingExceptionTranslator(fallback).translate("t", null, new SQLException("odd", "ZZ999")))
                .isInstanceOf(UncategorizedSQLException.class);
        assertThat(new FencingExceptionTranslator(null).translate("t", null, new SQLException("odd", "ZZ999"))).isNull();
    }
}
