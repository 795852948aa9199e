package dev.fencing.internal.guard;

import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** The guard's messages with their migration hint still read back, also when MariaDB cuts them at 128 characters. */
class GuardMessagesTest {

    @Test
    void aShortMariaDbMessageKeepsItsHint() {
        String text = MariaDbGuard.missingMessage("shop.orders");
        assertThat(text).isEqualTo("fencing guard: no fence in session for shop.orders"
                + " (migration: DatabaseGuard.migrate or SET @fencing_migration)");
        assertThat(((MissingFenceException) GuardErrors.translate(new SQLException(text, "ZF002"))).table())
                .isEqualTo("shop.orders");
    }

    @Test
    void aLongMariaDbMessageLosesTheHintNotTheTable() {
        String label = "a_database_name_of_forty_characters_xxxx.a_table_name_of_thirty_chars_x";
        String text = MariaDbGuard.missingMessage(label);
        assertThat(text).hasSize(GuardErrors.MARIADB_MESSAGE_LIMIT).contains(label + " (migration");
        assertThat(((MissingFenceException) GuardErrors.translate(new SQLException(text, "ZF002"))).table()).isEqualTo(label);
        // what the SIGNAL's LEFT(CONCAT(..), 128) makes of a stale fence: the hint goes first
        String shorter = "a_database_name_of_24chr.orders_2024_q1";
        String stale = GuardErrors.STALE + "9223372036854775806 on " + shorter + " holding 9223372036854775807"
                + GuardErrors.MARIADB_HINT;
        stale = stale.substring(0, Math.min(stale.length(), GuardErrors.MARIADB_MESSAGE_LIMIT));
        StaleFenceException read = (StaleFenceException) GuardErrors.translate(new SQLException(stale, "ZF001"));
        assertThat(read.attemptedFence()).isEqualTo(9223372036854775806L);
        assertThat(read.currentFence()).hasValue(9223372036854775807L);
        assertThat(read.table()).isEqualTo(shorter);
        // a name so long that the numbers are cut too still arrives as a stale fence (as before the hint)
        String cut = (GuardErrors.STALE + "9223372036854775806 on " + label + " holding 9223372036854775807").substring(0, 128);
        assertThat((Object) GuardErrors.translate(new SQLException(cut, "ZF001"))).isInstanceOf(StaleFenceException.class);
    }

    @Test
    void h2MessagesCarryTheHintAndReadBack() {
        String text = GuardErrors.STALE + "3 on PUBLIC.ORDERS holding 5" + GuardErrors.H2_HINT;
        StaleFenceException read = (StaleFenceException) GuardErrors.translate(new SQLException(text, "ZF001"));
        assertThat(read.currentFence()).hasValue(5);
        assertThat(read.table()).isEqualTo("PUBLIC.ORDERS");
    }
}
