package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Differential.Disagreement;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Replays every text the oracle ever shrunk ({@code corpus.txt}, and {@code pending-frontdoor.txt}
 * once {@link FrontdoorClasses#MERGED}) on its database and setting: the server and the analyzer
 * must agree on each, for ever.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OracleCorpusTest {

    private final DataSource postgres;
    private final DataSource mariaDb;
    private final Map<Setting, Differential> open = new LinkedHashMap<>();

    OracleCorpusTest(DataSource postgres, @TestDatabase(TestDatabase.Kind.MARIADB) DataSource mariaDb) {
        this.postgres = postgres;
        this.mariaDb = mariaDb;
    }

    @TestFactory
    Stream<DynamicTest> everyShrunkTextStillReadsAlike() throws Exception {
        List<OracleCorpus.Entry> entries = new ArrayList<>(OracleCorpus.read(OracleCorpus.REPLAYED));
        if (FrontdoorClasses.MERGED) {
            entries.addAll(OracleCorpus.read(OracleCorpus.PENDING_FRONTDOOR));
        }
        return entries.stream().map(entry -> DynamicTest.dynamicTest(
                "line " + entry.line() + " " + entry.setting() + ": " + OracleCorpus.escape(entry.text()), () -> {
                    Differential differential = differential(entry.setting());
                    differential.server.resync(); // the settings of one database share its sequences
                    Disagreement disagreement = differential.check(entry.text());
                    assertNull(disagreement, () -> String.valueOf(disagreement));
                }));
    }

    private Differential differential(Setting setting) throws Exception {
        Differential differential = open.get(setting);
        if (differential == null) {
            DataSource scratch = switch (setting.database()) {
                case POSTGRESQL -> postgres;
                case MARIADB -> mariaDb;
                case H2 -> null;
            };
            differential = new Differential(Databases.server(setting, scratch));
            open.put(setting, differential);
        }
        return differential;
    }

    @AfterAll
    void close() throws Exception {
        for (Differential differential : open.values()) {
            differential.server.close();
        }
    }
}
