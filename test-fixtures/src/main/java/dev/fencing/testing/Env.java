package dev.fencing.testing;

/** Addresses of the shared test services, from the environment with loopback defaults. */
final class Env {

    private Env() {
    }

    static String get(String variable, String fallback) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    /** {@code url} without its query string and user info, safe to show in a message. */
    static String redact(String url) {
        String text = url;
        int query = text.indexOf('?');
        if (query >= 0) {
            text = text.substring(0, query);
        }
        int authority = text.indexOf("//");
        int at = text.indexOf('@', authority + 2);
        int slash = text.indexOf('/', authority + 2);
        if (authority >= 0 && at >= 0 && (slash < 0 || at < slash)) {
            text = text.substring(0, authority + 2) + "***@" + text.substring(at + 1);
        }
        return text;
    }
}
