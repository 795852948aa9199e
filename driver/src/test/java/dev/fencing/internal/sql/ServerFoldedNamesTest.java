package dev.fencing.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fencing.FencingConfig;
import dev.fencing.internal.config.TableName;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Names that a server folds into a fenced table's name are that table to the analysis too: H2
 * upper-cases unquoted names with Java's rules ({@code orderſ} is {@code ORDERS}, {@code addreß}
 * is {@code ADDRESS}, {@code ﬁles} is {@code FILES}), and PostgreSQL cuts every name to 63 bytes.
 * The server proofs are in integration-tests ({@code RecognizerAttackServerTest}).
 */
class ServerFoldedNamesTest {

    @Test
    void lettersThatFoldIntoAsciiMeetTheAsciiName() {
        assertMatches("orders", "order\u017f");       // long s
        assertMatches("address", "addre\u00df");      // sharp s, SS in upper case
        assertMatches("files", "\ufb01les");          // fi ligature
        assertMatches("keys", "\u212aeys");           // Kelvin sign, k in lower case
        assertMatches("invoices", "\u0131nvoices");   // dotless i, I in upper case
    }

    @Test
    void aNameIsCutAt63BytesAsPostgreSqlCutsIt() {
        String fenced = "orders_" + "x".repeat(56);
        assertEquals(63, fenced.length());
        assertMatches(fenced, fenced + "_tail");
        // two-byte letters: 31 of them are 62 bytes, the 32nd would make 64
        String wide = "\u00e9".repeat(40);
        assertEquals(TableName.parse("\u00e9".repeat(31)), TableName.parse(wide));
    }

    @Test
    void thePreFilterSendsSuchNamesToTheAnalysis() {
        FencedNameFilter filter = new FencedNameFilter(Set.of(TableName.parse("shipments")));
        // the first letter is the one that folds: a search that checks the first letter as ASCII misses it
        assertTrue(filter.mayNameFencedTable("UPDATE \u017fhipments SET status = 'x' WHERE id = 1"));
        assertTrue(filter.mayNameFencedTable("DELETE FROM \ufb01les WHERE id = 1"));
    }

    @Test
    void theAnalysisFencesAWriteThroughAFoldedName() {
        FencingConfig config = FencingConfig.builder().tables("orders").build();
        for (Dialect dialect : new Dialect[] {Dialect.H2, Dialect.POSTGRESQL}) {
            FencePlan plan = new StatementAnalyzer(config, dialect).plan("UPDATE order\u017f SET status = 'x' WHERE id = 42");
            assertEquals(FencePlan.Kind.FENCED, plan.kind(), dialect + ": " + plan);
        }
    }

    @Test
    void theFoldingLettersAreTheJdksOwn() {
        StringBuilder computed = new StringBuilder();
        for (char c = 0x80; c < Character.MAX_VALUE; c++) {
            String upper = String.valueOf(c).toUpperCase(java.util.Locale.ROOT);
            if (!Character.isSurrogate(c) && (holdsAsciiLetter(upper)
                    || holdsAsciiLetter(String.valueOf(c).toLowerCase(java.util.Locale.ROOT))
                    || holdsAsciiLetter(upper.toLowerCase(java.util.Locale.ROOT)))) {
                computed.append(c);
            }
        }
        assertEquals(computed.toString(), FencedNameFilter.FOLDING_INTO_ASCII);
    }

    private static boolean holdsAsciiLetter(String text) {
        return text.chars().anyMatch(c -> (c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    }

    private static void assertMatches(String configured, String written) {
        assertTrue(TableName.parse(configured).matches(TableName.parse(written)), written + " should be " + configured);
    }
}
