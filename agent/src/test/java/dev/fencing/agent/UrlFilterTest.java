package dev.fencing.agent;

import org.junit.jupiter.api.Test;

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
}
