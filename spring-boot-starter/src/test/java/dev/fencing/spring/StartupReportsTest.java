package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What a user sees at start-up, as Spring Boot prints it: a configuration mistake as the failure
 * analyzer's description and action (not a stack trace blaming a bean), one INFO line saying what
 * fencing covers, and a refusal of a Spring Boot line this build is not for.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupReportsTest {

    @Test
    void aMisspeltKeyIsReportedAsADescriptionAndAnAction(CapturedOutput output) {
        assertThatThrownBy(() -> start("--fencing.tabels=orders")).isNotNull();
        String all = output.getOut() + output.getErr();
        assertThat(all).contains("APPLICATION FAILED TO START");
        // the report names the key and the fix, not the bean that happened to read the settings first
        assertThat(all.substring(all.indexOf("APPLICATION FAILED TO START")))
                .containsPattern("Description:\\s+unknown fencing configuration key fencing.tabels \\(in commandLineArgs\\)")
                .containsPattern("Action:\\s+Correct the key \\(did you mean fencing.tables\\?\\) or remove it")
                .doesNotContain("fencingTranslationPostProcessor").doesNotContain("fencedLockAdvisor");
    }

    @Test
    void aValueOutsideTheAllowedOnesIsReportedNamingTheKeyAndTheValues(CapturedOutput output) {
        assertThatThrownBy(() -> start("--fencing.comparison=sometimes")).isNotNull();
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .containsPattern("Description:\\s+fencing-spring-boot-starter: .*fencing.comparison")
                .contains("newer-or-equal, strictly-newer")
                .containsPattern("Action:\\s+Correct the setting in the application's configuration");
    }

    @Test
    void oneInfoLineSaysWhatIsFenced(CapturedOutput output) {
        try (ConfigurableApplicationContext context = start()) {
            assertThat(output.getOut()).containsOnlyOnce("fencing-jdbc on: fenced tables ")
                    .contains("orders (row, column last_fence)").contains("ledger (epoch)")
                    .contains("; wrapped data sources dataSource; lock store JdbcFencedLocks[table fencing_locks in H2];"
                            + " database guard off");
        }
    }

    @Test
    void theSpringBootOfThisLineIsAcceptedAndOtherVersionsAreRefusedNamingBoth() {
        BootLineCheck.require(SpringBootVersion.getVersion());
        String otherLine = BootLine.supports("4.0.7") ? "3.5.7" : "4.0.7";
        for (String running : new String[] {otherLine, "3.4.10", "2.7.18"}) {
            assertThatThrownBy(() -> BootLineCheck.require(running))
                    .isInstanceOf(FencingConfigurationException.class)
                    .hasMessageStartingWith(BootLine.ARTIFACT + " supports " + BootLine.SUPPORTED
                            + " but this application runs Spring Boot " + running)
                    .hasMessageContaining("Use " + BootLine.OTHER);
        }
    }

    private static ConfigurableApplicationContext start(String... arguments) {
        return new SpringApplicationBuilder(StartupApplication.class).web(WebApplicationType.NONE)
                .properties("logging.level.dev.fencing=INFO", "fencing.table.ledger.mode=epoch")
                .run(arguments);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(FencingAutoConfiguration.class)
    static class StartupApplication {

        @Bean
        DataSource dataSource() {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL("jdbc:h2:mem:startup_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
            return h2;
        }
    }
}
