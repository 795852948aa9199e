package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.AnalyzerOptions;
import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.proof.Corpus.Entry;
import dev.fencing.proof.Corpus.Target;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The first analysis proves a splice from the parse's own tokens ({@code SpliceTokenProof}) and
 * re-reads the spliced text with JSqlParser's lexer only where that proof does not hold. This test
 * re-reads every splice the token proof accepted, for the bypass corpus, the fuzzer's output and
 * those texts with comments and odd white space put between their tokens: the token proof must
 * never accept what the re-read refuses (the analyzer throws an AssertionError if it does).
 */
class SpliceProofCrossCheckTest {

    /** The analyzer's cross-check, asked for when each analyzer is made (never in production). */
    private static final AnalyzerOptions CROSS_CHECKED = new AnalyzerOptions(true, true);

    private static final boolean LONG = Boolean.getBoolean("fencing.long");
    private static final List<FencingConfig> CONFIGS = List.of(
            FencingConfig.builder().tables("orders", "payments").build(),
            FencingConfig.builder().tables("orders", "payments").databaseGuard(FencingConfig.Guard.REQUIRED).build());
    /** Pieces a reader might take for a token edge: comments of every form, line breaks, tabs. */
    private static final String[] NOISE = {" ", "\t", "\n", "/**/", "/* x */", "-- c\n", "// c\n", "#c\n", " \r\n ", "/*+ h */"};

    @Test
    void theTokenProofNeverAcceptsASpliceTheReReadRefuses() throws Exception {
        Random random = new Random(2026_12_01L);
        long accepted = 0;
        long texts = 0;
        for (Target target : Target.values()) {
            String schema = target == Target.H2 ? "PUBLIC" : "fx_schema";
            List<String> base = new ArrayList<>();
            for (Entry entry : Corpus.load()) {
                if (entry.targets().contains(target)) {
                    base.addAll(entry.statements(schema));
                }
            }
            SqlFuzzer fuzzer = new SqlFuzzer(20261201, switch (target) {
                case PG -> SqlFuzzer.Flavor.POSTGRESQL;
                case H2 -> SqlFuzzer.Flavor.H2;
                case MARIA -> SqlFuzzer.Flavor.MARIADB;
            }, schema);
            for (int i = 0; i < (LONG ? 5000 : 400); i++) {
                base.add(fuzzer.statement());
            }
            List<String> all = new ArrayList<>(base);
            for (String sql : base) {
                all.add(withNoise(sql, random));
            }
            for (FencingConfig config : CONFIGS) {
                StatementAnalyzer analyzer = new StatementAnalyzer(config, target.dialect(), CROSS_CHECKED);
                for (String sql : all) {
                    analyzer.fullAnalysis(sql);
                    texts++;
                }
                accepted += analyzer.spliceProofsFromParse();
            }
        }
        System.out.println("SPLICE PROOF: " + texts + " analyses, " + accepted
                + " splices proved from the parse's tokens and re-read, 0 disagreements");
        assertTrue(accepted > 1000, "too few splices took the token proof to show anything: " + accepted);
    }

    /** {@code sql} with noise put after a few spaces: where a statement's tokens meet. */
    private static String withNoise(String sql, Random random) {
        StringBuilder noisy = new StringBuilder(sql.length() + 32);
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            noisy.append(c);
            if (c == ' ' && random.nextInt(4) == 0) {
                noisy.append(NOISE[random.nextInt(NOISE.length)]);
            }
        }
        return noisy.toString();
    }
}
