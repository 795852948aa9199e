package dev.fencing.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * The README's "Tested on every build" table names the versions the poms make the build test: a
 * version bumped in a pom without the README (or the other way round) fails here.
 */
class CompatibilityTableTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theTableNamesTheVersionsThePomsPin() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String table = readme.substring(readme.indexOf("Tested on every build"), readme.indexOf("## Adopting it"));

        assertThat(table).contains("Java | " + property("pom.xml", "maven.compiler.release") + " (bytecode level)")
                .contains("pgjdbc " + property("pom.xml", "postgresql.version"))
                .contains("MariaDB Connector/J " + property("pom.xml", "mariadb.version"))
                .contains("H2 | " + property("pom.xml", "h2.version"))
                .contains("Lettuce " + property("pom.xml", "lettuce.version").replace(".RELEASE", ""))
                .contains("Netty " + property("pom.xml", "netty.version").replace(".Final", ""))
                .contains("HikariCP " + property("pom.xml", "hikaricp.version"))
                .contains("Boot " + property("spring-boot3-starter/pom.xml", "spring-boot.version") + "'s Lettuce " + property("spring-boot3-starter/pom.xml", "lettuce.version").replace(".RELEASE", ""))
                .contains("Boot " + property("spring-boot3-starter/pom.xml", "spring-boot.version") + "'s HikariCP " + property("spring-boot3-starter/pom.xml", "hikaricp.version"))
                .contains("jetcd " + property("pom.xml", "jetcd.version"))
                .contains("Spring Boot " + property("spring-boot-starter/pom.xml", "spring-boot.version"))
                .contains("Spring Boot " + property("integration-tests/pom.xml", "spring-boot.version"))
                .contains("Spring Boot " + property("spring-boot3-starter/pom.xml", "spring-boot.version"))
                .contains("jOOQ " + property("integration-tests/pom.xml", "jooq.version"))
                .contains("MyBatis " + property("integration-tests/pom.xml", "mybatis.version"))
                .contains("DBCP " + minor(property("agent/pom.xml", "dbcp2.version")))
                .contains("Agroal " + property("agent/pom.xml", "agroal.version"))
                .contains("ShedLock " + property("integrations/shedlock/pom.xml", "shedlock.version") + " on Boot "
                        + major(property("integrations/shedlock/pom.xml", "spring-boot.version")))
                .contains("ShedLock " + property("integrations/shedlock-boot3-tests/pom.xml", "shedlock.version") + " on Boot "
                        + minor(property("integrations/shedlock-boot3-tests/pom.xml", "spring-boot.version")));
    }

    /** {@code 4.0.7} as {@code 4}. */
    private static String major(String version) {
        return version.substring(0, version.indexOf('.'));
    }

    /** {@code 2.13.0} as {@code 2.13}. */
    private static String minor(String version) {
        return version.substring(0, version.lastIndexOf('.'));
    }

    private static String property(String pom, String name) throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(ROOT.resolve(pom).toFile()).getDocumentElement();
        Element properties = (Element) project.getElementsByTagName("properties").item(0);
        String value = properties.getElementsByTagName(name).item(0).getTextContent().strip();
        assertThat(value).as("%s in %s", name, pom).isNotBlank();
        return value;
    }
}
