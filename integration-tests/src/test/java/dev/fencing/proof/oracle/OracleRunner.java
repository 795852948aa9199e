package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Differential.Disagreement;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Runs generated texts on one setting, shrinks every disagreement to a short text and records it
 * in the corpus: in {@link OracleCorpus#PENDING_FRONTDOOR} when it belongs to a class issue 13 is
 * fixing, else in {@link OracleCorpus#REPLAYED}, where every later build replays it.
 */
final class OracleRunner {

    /** Beyond this many, further disagreements of a run are counted but not shrunk. */
    private static final int SHRUNK_PER_RUN = 12;
    /**
     * Texts of a class issue 13 is fixing are known; a few examples per run are enough, and
     * shrinking costs up to {@link #SHRINK_BUDGET} server runs each.
     */
    private static final int PENDING_SHRUNK_PER_RUN = 2;
    private static final int SHRINK_BUDGET = 600;

    record Found(Disagreement shrunk, String frontdoorClass, Path recordedIn) {
        boolean pending() {
            return frontdoorClass != null && !FrontdoorClasses.MERGED;
        }
    }

    record Report(Setting setting, long seed, int texts, long nanos, Differential.Tally tally, List<Found> found,
                  int disagreements) {

        List<Found> failures() {
            return found.stream().filter(f -> !f.pending()).toList();
        }

        double textsPerSecond() {
            return texts / (nanos / 1e9);
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder(String.format("%s seed %d: %d texts in %.1f s (%.0f texts/s); %s; %d disagreement(s), %d shrunk",
                    setting, seed, texts, nanos / 1e9, textsPerSecond(), tally, disagreements, found.size()));
            for (Found f : found) {
                text.append("\n- ").append(f.pending() ? "PENDING (issue 13: " + f.frontdoorClass() + ") " : "")
                        .append(f.shrunk()).append("\n  recorded in ").append(f.recordedIn());
            }
            return text.toString();
        }
    }

    private OracleRunner() {
    }

    static Report run(Server server, long seed, int texts) throws SQLException, IOException {
        Differential differential = new Differential(server);
        TextGenerator generator = new TextGenerator(server.setting.database(), new Random(seed));
        List<Found> found = new ArrayList<>();
        int disagreements = 0;
        int pendingShrunk = 0;
        long started = System.nanoTime();
        long shrinking = 0;
        for (int i = 0; i < texts; i++) {
            String text = generator.next();
            Disagreement disagreement = differential.check(text);
            if (disagreement == null) {
                continue;
            }
            disagreements++;
            boolean likelyPending = FrontdoorClasses.of(server.setting, text) != null && !FrontdoorClasses.MERGED;
            if (found.size() >= SHRUNK_PER_RUN || (likelyPending && pendingShrunk >= PENDING_SHRUNK_PER_RUN)) {
                continue;
            }
            if (likelyPending) {
                pendingShrunk++;
            }
            long shrinkStarted = System.nanoTime();
            Disagreement shrunk = differential.shrink(disagreement, SHRINK_BUDGET);
            shrinking += System.nanoTime() - shrinkStarted;
            String frontdoor = FrontdoorClasses.of(server.setting, shrunk.text());
            String note = shrunk.category() + " found with seed " + seed + " text " + i;
            Path path = OracleCorpus.record(frontdoor != null ? OracleCorpus.PENDING_FRONTDOOR : OracleCorpus.REPLAYED,
                    server.setting, shrunk.text(), frontdoor != null ? note + "; " + frontdoor : note);
            found.add(new Found(shrunk, frontdoor, path));
        }
        long nanos = System.nanoTime() - started - shrinking;
        // the shrinking runs are not part of the figures
        return new Report(server.setting, seed, texts, nanos, differential.tally, found, disagreements);
    }
}
