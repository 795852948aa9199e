package dev.fencing.bench.pg;

/** Where the PostgreSQL benchmarks connect: {@code FENCING_PG_URL}, else the loopback test database. */
public final class Postgres {

    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    private Postgres() {
    }

    public static String url() {
        String url = System.getenv("FENCING_PG_URL");
        return url == null || url.isBlank() ? DEFAULT_URL : url;
    }
}
