package dev.fencing.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code --help} answers with the usage on standard output, and every usage line calls the jar by one name. */
class CommandLineHelpTest {

    private static final Pattern JAR = Pattern.compile("java -jar (\\S+)");

    @Test
    void guardHelpPrintsTheUsageAndTheActions() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Guard.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith(Guard.USAGE)
                .contains("print ").contains("install ").contains("verify ").contains("remove ");
    }

    @Test
    void everyCommandAnswersHelpAndEveryUsageLineNamesTheSameJar() throws Exception {
        StringBuilder all = new StringBuilder();
        for (String[] arguments : new String[][] {{"--help"}, {"explain", "--help"}, {"demo", "--help"}, {"guard", "-h"}}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream saved = System.out;
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            int status;
            try {
                status = Main.run(arguments);
            } finally {
                System.setOut(saved);
            }
            String text = out.toString(StandardCharsets.UTF_8);
            assertThat(status).as(String.join(" ", arguments)).isZero();
            assertThat(text).as(String.join(" ", arguments)).startsWith("usage: java -jar ");
            all.append(text);
        }
        Set<String> names = new TreeSet<>();
        Matcher jar = JAR.matcher(all);
        while (jar.find()) {
            names.add(jar.group(1));
        }
        assertThat(names).containsExactly(Main.JAR);
    }
}
