package dev.fencing.internal.sql;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lexer on its own: where each quote, comment and dollar form ends per dialect. A boundary
 * read one character off would hide a {@code ?}, a keyword or a semicolon from the analyzer, so
 * each case names the tokens it expects exactly.
 */
class SqlTokensTest {

    private static final String[] KIND_NAMES = {"", "WORD", "QUOTED_IDENTIFIER", "STRING", "NUMBER", "PARAMETER",
            "OPEN", "CLOSE", "COMMA", "SEMICOLON", "DOT", "OPERATOR", "EXECUTABLE_COMMENT", "JDBC_ESCAPE_OPEN"};

    /** Each token as {@code KIND text}. */
    private static List<String> tokens(String sql, Dialect dialect) throws SqlTokens.UnreadableSqlException {
        SqlTokens tokens = SqlTokens.lex(sql, dialect);
        List<String> described = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            described.add(KIND_NAMES[tokens.kind(i)] + " " + tokens.text(i));
        }
        return described;
    }

    @Test
    void aDoubledQuoteStaysInsideTheStringInEveryDialect() throws Exception {
        for (Dialect dialect : Dialect.values()) {
            assertThat(tokens("SELECT 'it''s ?', ?", dialect)).as(dialect.name())
                    .containsExactly("WORD SELECT", "STRING 'it''s ?'", "COMMA ,", "PARAMETER ?");
        }
    }

    @Test
    void aBackslashEscapesTheQuoteOnlyOnMariaDb() throws Exception {
        assertThat(tokens("SELECT 'a\\', ?", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "STRING 'a\\'", "COMMA ,", "PARAMETER ?");
        assertThat(tokens("SELECT 'a\\', ?", Dialect.H2))
                .containsExactly("WORD SELECT", "STRING 'a\\'", "COMMA ,", "PARAMETER ?");
        assertThat(tokens("SELECT 'a\\', ?'", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "STRING 'a\\', ?'");
    }

    @Test
    void anEscapeStringHonoursBackslashesOnPostgresqlButNotOnH2() throws Exception {
        assertThat(tokens("SELECT E'a\\', ?'", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "STRING E'a\\', ?'");
        assertThat(tokens("SELECT E'a\\', ?", Dialect.H2))
                .containsExactly("WORD SELECT", "STRING E'a\\'", "COMMA ,", "PARAMETER ?");
    }

    @Test
    void prefixedStringsAreOneToken() throws Exception {
        assertThat(tokens("SELECT N'?', X'0A', B'01', U&'d\\0061t?'", Dialect.POSTGRESQL)).containsExactly(
                "WORD SELECT", "STRING N'?'", "COMMA ,", "STRING X'0A'", "COMMA ,", "STRING B'01'", "COMMA ,",
                "STRING U&'d\\0061t?'");
        // a prefix letter at the end of a word is part of the word
        assertThat(tokens("SELECT fooN'x'", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "WORD fooN", "STRING 'x'");
    }

    @Test
    void doubleQuotesQuoteAnIdentifierExceptOnMariaDbWhereTheyQuoteAString() throws Exception {
        assertThat(tokens("UPDATE \"or?ders\" SET a = 1", Dialect.POSTGRESQL))
                .containsExactly("WORD UPDATE", "QUOTED_IDENTIFIER \"or?ders\"", "WORD SET", "WORD a", "OPERATOR =",
                        "NUMBER 1");
        assertThat(tokens("SELECT \"a\"\"?\"", Dialect.H2))
                .containsExactly("WORD SELECT", "QUOTED_IDENTIFIER \"a\"\"?\"");
        assertThat(tokens("SELECT \"a\\\"?\"", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "STRING \"a\\\"?\"");
    }

    @Test
    void backticksQuoteAnIdentifierOnMariaDbAndH2Only() throws Exception {
        assertThat(tokens("SELECT `a?``b`", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "QUOTED_IDENTIFIER `a?``b`");
        assertThat(tokens("SELECT `a?`", Dialect.H2)).containsExactly("WORD SELECT", "QUOTED_IDENTIFIER `a?`");
        assertThat(tokens("SELECT `a?`", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "OPERATOR `", "WORD a", "PARAMETER ?", "OPERATOR `");
    }

    @Test
    void unicodeEscapedIdentifiersAreOneTokenOnPostgresql() throws Exception {
        assertThat(tokens("UPDATE U&\"ord\\0065rs?\" SET", Dialect.POSTGRESQL))
                .containsExactly("WORD UPDATE", "QUOTED_IDENTIFIER U&\"ord\\0065rs?\"", "WORD SET");
    }

    @Test
    void dollarQuotesOnPostgresqlTaggedOrNot() throws Exception {
        assertThat(tokens("DO $$ x; ? $$ ; ?", Dialect.POSTGRESQL))
                .containsExactly("WORD DO", "STRING $$ x; ? $$", "SEMICOLON ;", "PARAMETER ?");
        assertThat(tokens("SELECT $a$ $$ ? $b$ $a$, ?", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "STRING $a$ $$ ? $b$ $a$", "COMMA ,", "PARAMETER ?");
        // a tag may hold digits and characters above U+007F, but not start with a digit
        assertThat(tokens("SELECT $é1$?$é1$", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "STRING $é1$?$é1$");
        assertThat(tokens("SELECT $1", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "OPERATOR $", "NUMBER 1");
        // after an identifier character the dollar continues the word
        assertThat(tokens("SELECT foo$bar$, ?", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "WORD foo$bar$", "COMMA ,", "PARAMETER ?");
    }

    @Test
    void dollarQuotesOnH2AreUntaggedAndALoneDollarIsUnreadable() throws Exception {
        assertThat(tokens("SELECT $$ ? $$, ?", Dialect.H2))
                .containsExactly("WORD SELECT", "STRING $$ ? $$", "COMMA ,", "PARAMETER ?");
        assertThatThrownBy(() -> tokens("SELECT $a", Dialect.H2)).isInstanceOf(SqlTokens.UnreadableSqlException.class)
                .hasMessageContaining("lone '$'");
    }

    @Test
    void mariaDbHasNoDollarQuotes() throws Exception {
        assertThat(tokens("SELECT $$ ? $$", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "OPERATOR $", "OPERATOR $", "PARAMETER ?", "OPERATOR $", "OPERATOR $");
    }

    @Test
    void anUnterminatedDollarQuoteIsUnreadable() {
        assertThatThrownBy(() -> tokens("SELECT $x$ ?", Dialect.POSTGRESQL))
                .isInstanceOf(SqlTokens.UnreadableSqlException.class).hasMessageContaining("unterminated $x$");
    }

    @Test
    void aLineCommentEndsAtTheLineEnd() throws Exception {
        for (Dialect dialect : Dialect.values()) {
            assertThat(tokens("SELECT 1 -- ? ;\n, ?", dialect)).as(dialect.name())
                    .containsExactly("WORD SELECT", "NUMBER 1", "COMMA ,", "PARAMETER ?");
        }
    }

    @Test
    void aLoneCarriageReturnEndsALineCommentOnPostgresqlAndH2ButNotOnMariaDb() throws Exception {
        assertThat(tokens("SELECT 1 -- c\r?", Dialect.POSTGRESQL)).containsExactly("WORD SELECT", "NUMBER 1", "PARAMETER ?");
        assertThat(tokens("SELECT 1 -- c\r?", Dialect.H2)).containsExactly("WORD SELECT", "NUMBER 1", "PARAMETER ?");
        assertThat(tokens("SELECT 1 -- c\r?", Dialect.MARIADB)).containsExactly("WORD SELECT", "NUMBER 1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--x", "--\u3000", "--\u00a0"})
    void onMariaDbTwoDashesStartACommentOnlyBeforeAnAsciiSpaceOrControl(String dashes) throws Exception {
        assertThat(tokens("SELECT 1 " + dashes + " ?", Dialect.MARIADB)).contains("OPERATOR -", "PARAMETER ?");
        assertThat(tokens("SELECT 1 " + dashes + " ?", Dialect.POSTGRESQL)).containsExactly("WORD SELECT", "NUMBER 1");
        assertThat(tokens("SELECT 1 --\t?", Dialect.MARIADB)).containsExactly("WORD SELECT", "NUMBER 1");
    }

    @Test
    void aHashCommentOnlyOnMariaDbAndItIsRecordedForTheParser() throws Exception {
        String sql = "SELECT 1 # ?\n, ?";
        assertThat(tokens(sql, Dialect.MARIADB)).containsExactly("WORD SELECT", "NUMBER 1", "COMMA ,", "PARAMETER ?");
        assertThat(SqlTokens.lex(sql, Dialect.MARIADB).hashComments()).containsExactly(9, 13);
        assertThat(tokens(sql, Dialect.POSTGRESQL)).contains("OPERATOR #", "PARAMETER ?");
        assertThat(SqlTokens.lex(sql, Dialect.POSTGRESQL).hashComments()).isEmpty();
    }

    @Test
    void aDoubleSlashCommentOnlyOnH2() throws Exception {
        assertThat(tokens("SELECT 1 // ?\n", Dialect.H2)).containsExactly("WORD SELECT", "NUMBER 1");
        assertThat(tokens("SELECT 1 // ?\n", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "NUMBER 1", "OPERATOR /", "OPERATOR /", "PARAMETER ?");
    }

    @Test
    void blockCommentsNestOnPostgresqlAndH2ButNotOnMariaDb() throws Exception {
        String sql = "SELECT /* a /* b */ ? */ ?";
        assertThat(tokens(sql, Dialect.POSTGRESQL)).containsExactly("WORD SELECT", "PARAMETER ?");
        assertThat(tokens(sql, Dialect.H2)).containsExactly("WORD SELECT", "PARAMETER ?");
        assertThat(tokens(sql, Dialect.MARIADB))
                .containsExactly("WORD SELECT", "PARAMETER ?", "OPERATOR *", "OPERATOR /", "PARAMETER ?");
    }

    /**
     * Found by the server oracle (seed 20262201): MariaDB ends a plain comment at the first star-slash,
     * even one whose star belongs to a slash-star inside it, so {@code /}{@code *}{@code /}{@code *}{@code /}
     * is a whole comment there and what follows is code. Read as a nested opening, the rest of the
     * text was hidden in a comment the server never saw.
     */
    @Test
    void onMariaDbASlashStarInsideAPlainCommentLendsItsStarToTheClose() throws Exception {
        assertThat(tokens("SELECT 1 /*/*/, ? /* x */", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "NUMBER 1", "COMMA ,", "PARAMETER ?");
        assertThat(tokens("SELECT\"\"/*/*/,NEXT VALUE FOR o_m9;*/", Dialect.MARIADB))
                .startsWith("WORD SELECT", "STRING \"\"", "COMMA ,", "WORD NEXT");
        // PostgreSQL's scanner reads the inner slash-star first: the comment is still open there
        assertThatThrownBy(() -> tokens("SELECT 1 /*/*/, ?", Dialect.POSTGRESQL))
                .isInstanceOf(SqlTokens.UnreadableSqlException.class);
    }

    @Test
    void anUnterminatedCommentOrQuoteIsUnreadable() {
        for (Dialect dialect : Dialect.values()) {
            assertThatThrownBy(() -> tokens("SELECT /* ?", dialect)).as(dialect.name())
                    .isInstanceOf(SqlTokens.UnreadableSqlException.class).hasMessageContaining("unterminated comment");
            assertThatThrownBy(() -> tokens("SELECT 'a", dialect)).as(dialect.name())
                    .isInstanceOf(SqlTokens.UnreadableSqlException.class).hasMessageContaining("unterminated ' quote");
        }
    }

    @Test
    void mariaDbExecutableCommentsAreTokensOfTheirOwn() throws Exception {
        assertThat(tokens("SELECT /*! 1, ? */ 2", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "EXECUTABLE_COMMENT /*! 1, ? */", "NUMBER 2");
        assertThat(tokens("SELECT /*M!100000 ? */ 2", Dialect.MARIADB))
                .containsExactly("WORD SELECT", "EXECUTABLE_COMMENT /*M!100000 ? */", "NUMBER 2");
        assertThat(tokens("SELECT /*! 1 */ 2", Dialect.POSTGRESQL)).containsExactly("WORD SELECT", "NUMBER 2");
    }

    @Test
    void questionMarksAreParametersUnlessDoubled() throws Exception {
        assertThat(tokens("SELECT a ?? b, ?", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "WORD a", "OPERATOR ??", "WORD b", "COMMA ,", "PARAMETER ?");
    }

    @Test
    void numbersEndWhereTheyEnd() throws Exception {
        assertThat(tokens("SELECT 1.5e-3+.5, x1", Dialect.POSTGRESQL))
                .containsExactly("WORD SELECT", "NUMBER 1.5e-3", "OPERATOR +", "NUMBER .5", "COMMA ,", "WORD x1");
    }

    @Test
    void offsetsAndDepthsOfTokens() throws Exception {
        SqlTokens tokens = SqlTokens.lex("f( a, (b) ) ;", Dialect.POSTGRESQL);
        int[][] expected = {{0, 1, 0}, {1, 2, 0}, {3, 4, 1}, {4, 5, 1}, {6, 7, 1}, {7, 8, 2}, {8, 9, 1}, {10, 11, 0},
                {12, 13, 0}};
        assertThat(tokens.size()).isEqualTo(expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertThat(new int[] {tokens.start(i), tokens.end(i), tokens.depth(i)}).as("token " + i)
                    .containsExactly(expected[i]);
        }
    }

    @Test
    void unbalancedParenthesesAreUnreadable() {
        assertThatThrownBy(() -> tokens("SELECT (1", Dialect.POSTGRESQL))
                .isInstanceOf(SqlTokens.UnreadableSqlException.class).hasMessageContaining("left open");
        assertThatThrownBy(() -> tokens("SELECT 1)", Dialect.POSTGRESQL))
                .isInstanceOf(SqlTokens.UnreadableSqlException.class).hasMessageContaining("unbalanced ')'");
    }

    @Test
    void charactersAboveAsciiContinueWordsExceptOnH2() throws Exception {
        assertThat(tokens("SELECT a\u00e9b", Dialect.POSTGRESQL)).containsExactly("WORD SELECT", "WORD a\u00e9b");
        assertThat(tokens("SELECT a\u00a0?", Dialect.MARIADB)).containsExactly("WORD SELECT", "WORD a\u00a0", "PARAMETER ?");
        // H2 reads a no-break space as white space
        assertThat(tokens("SELECT a\u00a0?", Dialect.H2)).containsExactly("WORD SELECT", "WORD a", "PARAMETER ?");
    }

    @Test
    void wordsAndIdentifiers() throws Exception {
        SqlTokens tokens = SqlTokens.lex("update \"Orders\" Set", Dialect.POSTGRESQL);
        assertThat(tokens.isWord(0, "UPDATE")).isTrue();
        assertThat(tokens.isWord(1, "Orders")).isFalse();
        assertThat(tokens.isIdentifier(1)).isTrue();
        assertThat(tokens.identifier(1)).isEqualTo("orders");
        assertThat(tokens.isWord(2, "SET")).isTrue();
        assertThat(tokens.isWord(3, "SET")).isFalse();
    }

    @Test
    void jdbcEscapesOpenWithABrace() throws Exception {
        assertThat(tokens("{call p(?)}", Dialect.POSTGRESQL)).containsExactly("JDBC_ESCAPE_OPEN {", "WORD call",
                "WORD p", "OPEN (", "PARAMETER ?", "CLOSE )", "OPERATOR }");
    }

    /**
     * Issue 29: the lexer's work grows linearly with the text. What it looks at is counted (each
     * character as the scan passes it, plus every character a rule reads again: the backslash
     * test of each string, H2's bracket rule), not timed: for every form, a text sixteen times as
     * long costs at most sixteen times as many visits (plus 10 %), and never more than four
     * visits a character. A 16,000-row INSERT is one of them (its backslash test read the rest of
     * the text from every string: 1.1 s).
     */
    @Test
    void theLexersWorkGrowsLinearlyWithTheText() throws Exception {
        java.util.Map<String, java.util.function.IntFunction<String>> forms = new java.util.LinkedHashMap<>();
        forms.put("multi-row insert", n -> "INSERT INTO orders (id, status, amount) VALUES "
                + String.join(", ", java.util.Collections.nCopies(n, "(1, 'new', 2.5)")));
        forms.put("strings", n -> "SELECT " + "'it''s', ".repeat(n) + "1");
        forms.put("block comments", n -> "SELECT " + "/* c */ 1, ".repeat(n) + "1");
        forms.put("line comments", n -> "SELECT " + "1, -- c\n".repeat(n) + "1");
        forms.put("nested parentheses", n -> "SELECT " + "(".repeat(n) + "1" + ")".repeat(n));
        forms.put("identifiers", n -> "SELECT " + "\"a\".b, ".repeat(n) + "1");
        java.util.Map<Dialect, java.util.Map<String, java.util.function.IntFunction<String>>> byDialect =
                new java.util.EnumMap<>(Dialect.class);
        for (Dialect dialect : Dialect.values()) {
            java.util.Map<String, java.util.function.IntFunction<String>> own = new java.util.LinkedHashMap<>(forms);
            if (dialect == Dialect.MARIADB) {
                own.put("hash comments", n -> "SELECT " + "1, # c\n".repeat(n) + "1");
                own.put("backslash strings", n -> "SELECT " + "'a\\'b', ".repeat(n) + "1");
            } else if (dialect == Dialect.POSTGRESQL) {
                own.put("dollar quotes", n -> "SELECT " + "$q$a'b$q$, ".repeat(n) + "1");
                own.put("escape strings", n -> "SELECT " + "E'a\\'b', ".repeat(n) + "1");
            } else {
                own.put("nested brackets", n -> "SELECT " + "ARRAY[".repeat(n) + "1" + "]".repeat(n));
                own.put("arrays of strings", n -> "SELECT " + "ARRAY['a', 'b'], ".repeat(n) + "1");
                own.put("subscripts", n -> "SELECT " + "a[1], ".repeat(n) + "1");
            }
            byDialect.put(dialect, own);
        }
        for (java.util.Map.Entry<Dialect, java.util.Map<String, java.util.function.IntFunction<String>>> dialect
                : byDialect.entrySet()) {
            for (java.util.Map.Entry<String, java.util.function.IntFunction<String>> form : dialect.getValue().entrySet()) {
                String small = form.getValue().apply(1_000);
                String large = form.getValue().apply(16_000);
                long smallVisits = visits(small, dialect.getKey());
                long largeVisits = visits(large, dialect.getKey());
                String what = dialect.getKey() + " " + form.getKey();
                assertThat(largeVisits).as(what + ": visits of a text 16 times as long")
                        .isLessThanOrEqualTo((long) (smallVisits * 1.1 * large.length() / small.length()));
                assertThat(largeVisits).as(what + ": visits per character").isLessThanOrEqualTo(4L * large.length());
            }
        }
    }

    /** What the lexer and the backslash test of every token looked at. */
    private static long visits(String sql, Dialect dialect) throws SqlTokens.UnreadableSqlException {
        SqlTokens tokens = SqlTokens.lex(sql, dialect);
        for (int i = 0; i < tokens.size(); i++) {
            tokens.hasBackslash(i);
        }
        return tokens.visited();
    }
}
