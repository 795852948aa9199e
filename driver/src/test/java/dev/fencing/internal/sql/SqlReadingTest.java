package dev.fencing.internal.sql;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SqlReadingTest {

    @Test
    void statementsAreSplitAtTopLevelSemicolonsWithTheirTokens() {
        SqlReading reading = SqlReading.of("SELECT 'a;b' /* ; */; DO $$ x; $$ ; -- c\n", Dialect.POSTGRESQL);

        assertThat(reading.readable()).isTrue();
        assertThat(reading.statements()).hasSize(2);
        assertThat(reading.statements().get(0).tokens()).extracting(SqlReading.Token::kind)
                .containsExactly(SqlReading.TokenKind.WORD, SqlReading.TokenKind.STRING);
        assertThat(reading.statements().get(0).dynamic()).isFalse();
        assertThat(reading.statements().get(1).dynamic()).isTrue();
        assertThat(reading.statements().get(1).text()).isEqualTo(" DO $$ x; $$ ");
    }

    @Test
    void anUnterminatedStringIsUnreadable() {
        SqlReading reading = SqlReading.of("SELECT 'a", Dialect.POSTGRESQL);

        assertThat(reading.readable()).isFalse();
        assertThat(reading.unreadable()).contains("unterminated");
        assertThat(reading.statements()).isEmpty();
    }

    /**
     * Found by the oracle (docs/oracle.md): H2 in MODE=MSSQLServer reads {@code [x']} as a quoted
     * name, so the quote inside does not start a string and what follows runs; in the other modes
     * it is a bracket and a string. A text whose brackets end at different places under the two
     * readings cannot be read with certainty.
     */
    @Test
    void anH2BracketThatEndsElsewhereAsAnMsSqlQuotedNameIsUnreadable() {
        SqlReading reading = SqlReading.of("SELECT 1 AS [x'], NEXT VALUE FOR s --']", Dialect.H2);

        assertThat(reading.readable()).as("%s", reading.statements()).isFalse();
        assertThat(reading.unreadable()).contains("MSSQLServer");
    }

    /** Found by the oracle: the same bracket ends alike, but MSSQLServer mode makes the code inside a name. */
    @Test
    void anH2BracketHoldingCodeNextToQuotesIsUnreadable() {
        SqlReading reading = SqlReading.of("SELECT '' AS ``, '' [\"\"NEXT VALUE FOR s]", Dialect.H2);

        assertThat(reading.readable()).as("%s", reading.statements()).isFalse();
        assertThat(reading.unreadable()).contains("MSSQLServer");
    }

    @Test
    void h2ArraysAndNamesThatEndAtTheSameBracketUnderBothReadingsStayReadable() {
        assertThat(SqlReading.of("SELECT ARRAY['a', 'b'], ARRAY[1, 2][1], [x] FROM t", Dialect.H2).readable()).isTrue();
        assertThat(SqlReading.of("SELECT ARRAY[ARRAY[1], ARRAY[2]]", Dialect.H2).readable()).isTrue();
        assertThat(SqlReading.of("SELECT 1 AS [x'], 2 --']", Dialect.POSTGRESQL).readable()).isTrue();
    }
}
