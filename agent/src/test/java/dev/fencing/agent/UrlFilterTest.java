package dev.fencing.agent;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class UrlFilterTest {

    @Test
    void withoutPatternsEveryUrlIsFenced() {
        UrlFilter filter = UrlFilter.of(null, " ");
        assertThat(filter.fencesAll()).isTrue();
        assertThat(filter.fences("jdbc:h2:mem:x")).isTrue();
    }

    @Test
    void includesLimitAndExcludesWin() {
        UrlFilter filter = UrlFilter.of("jdbc:postgresql://orders-db*, jdbc:h2:*", "jdbc:h2:mem:scratch*");
        assertThat(filter.fences("jdbc:postgresql://orders-db:5432/app?user=x")).isTrue();
        assertThat(filter.fences("jdbc:postgresql://reports-db/app")).isFalse();
        assertThat(filter.fences("jdbc:h2:mem:app")).isTrue();
        assertThat(filter.fences("jdbc:h2:mem:scratch;DB_CLOSE_DELAY=-1")).isFalse();
    }

    @Test
    void patternsMatchTheWholeUrlAndOnlyStarIsSpecial() {
        UrlFilter filter = UrlFilter.of("jdbc:h2:mem:a.b", null);
        assertThat(filter.fences("jdbc:h2:mem:a.b")).isTrue();
        assertThat(filter.fences("jdbc:h2:mem:aXb")).isFalse();
        assertThat(filter.fences("jdbc:h2:mem:a.b;x=1")).isFalse();
    }

    @Test
    void anUnknownUrlIsFenced() {
        assertThat(UrlFilter.of("jdbc:postgresql:*", null).fences(null)).isTrue();
        assertThat(UrlFilter.of(null, "*").fences(null)).isTrue();
    }

    @Test
    void aLeadingStarStandsForAnyTextToo() {
        UrlFilter filter = UrlFilter.of(null, "*ApplicationName=admin*");
        assertThat(filter.fences("jdbc:postgresql://db/app?ApplicationName=admin&user=x")).isFalse();
        assertThat(filter.fences("jdbc:postgresql://db/app?ApplicationName=orders")).isTrue();
        assertThat(UrlFilter.of(null, "*").fences("jdbc:h2:mem:x")).isFalse();
        assertThat(UrlFilter.of("*:5432/*", null).fences("jdbc:postgresql://db:5432/app")).isTrue();
    }

    @Test
    void theDefaultPortWrittenOrLeftOutMatchesBothWays() {
        UrlFilter withPort = UrlFilter.of("jdbc:mariadb://127.0.0.1:3306/test*", null);
        // MariaDB reports its URL without the default port, even for a data source's URL property
        assertThat(withPort.fences(List.of("jdbc:mariadb://127.0.0.1/test?user=root"), null)).isTrue();
        UrlFilter withoutPort = UrlFilter.of(null, "jdbc:postgresql://127.0.0.1/test*");
        assertThat(withoutPort.fences(List.of("jdbc:postgresql://127.0.0.1:5432/test?user=postgres"), null)).isFalse();
        assertThat(withoutPort.fences(List.of("jdbc:postgresql://127.0.0.1:5433/test"), null)).isTrue();
    }

    @Test
    void includesMatchAnyFormOfTheConfiguredOrReportedUrl() {
        UrlFilter filter = UrlFilter.of("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1", null);
        // H2 reports jdbc:h2:mem:orders: the configured URL decides
        assertThat(filter.fences(List.of("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1"), "jdbc:h2:mem:orders")).isTrue();
        assertThat(filter.fences(List.of("jdbc:h2:mem:reports"), "jdbc:h2:mem:reports")).isFalse();
    }

    @Test
    void whatTheFilterCannotDecideIsFenced() {
        UrlFilter includes = UrlFilter.of("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1", null);
        // only the reported URL, which lost the settings an include may name: fenced
        assertThat(includes.fences(List.of(), "jdbc:h2:mem:other")).isTrue();
        assertThat(includes.fences(List.of(), null)).isTrue();
        // an exclude that matches only the reported (normalised) URL while a configured one is known: fenced
        UrlFilter excludes = UrlFilter.of(null, "jdbc:h2:mem:scratch");
        assertThat(excludes.fences(List.of("jdbc:h2:mem:scratch;INIT=RUNSCRIPT FROM 'x'"), "jdbc:h2:mem:scratch")).isTrue();
        // without a configured URL, the reported one decides excludes
        assertThat(excludes.fences(List.of(), "jdbc:h2:mem:scratch")).isFalse();
    }
}
