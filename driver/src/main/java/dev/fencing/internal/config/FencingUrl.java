package dev.fencing.internal.config;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.StringJoiner;

/**
 * A {@code jdbc:fencing:<rest>} URL taken apart: the delegate's URL {@code jdbc:<rest>} without the
 * {@code fencing.*} query parameters, and those parameters (decoded). Only {@code ?a=b&c=d}
 * query strings are read; other parameter syntaxes (H2's {@code ;KEY=value}) pass unchanged.
 */
public record FencingUrl(String delegateUrl, Properties fencingParameters) {

    static final String PREFIX = "jdbc:fencing:";

    public static boolean accepts(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    public static FencingUrl parse(String url) {
        String delegate = "jdbc:" + url.substring(PREFIX.length());
        Properties fencing = new Properties();
        int query = delegate.indexOf('?');
        if (query < 0) {
            return new FencingUrl(delegate, fencing);
        }
        int fragment = delegate.indexOf('#', query);
        int end = fragment < 0 ? delegate.length() : fragment;
        StringJoiner kept = new StringJoiner("&");
        for (String parameter : delegate.substring(query + 1, end).split("&", -1)) {
            int equals = parameter.indexOf('=');
            String key = decode(equals < 0 ? parameter : parameter.substring(0, equals), parameter);
            if (ConfigSources.isFencingKey(key)) {
                fencing.setProperty(key, equals < 0 ? "" : decode(parameter.substring(equals + 1), key));
            } else if (!parameter.isEmpty()) {
                kept.add(parameter);
            }
        }
        String base = delegate.substring(0, query);
        String tail = fragment < 0 ? "" : delegate.substring(fragment);
        return new FencingUrl(kept.length() == 0 ? base + tail : base + "?" + kept + tail, fencing);
    }

    private static String decode(String text, String key) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // the parameter is not shown: it may be a password
            throw new IllegalArgumentException("malformed %-escape in URL parameter "
                    + (ConfigSources.isFencingKey(key) ? key : "(a non-fencing parameter)"), e);
        }
    }

    /**
     * The part of a URL that is safe to show in messages and logs: {@code jdbc:<subprotocol>:},
     * never the host, database, user or password.
     */
    public static String scheme(String url) {
        if (url == null) {
            return "null";
        }
        int first = url.indexOf(':');
        int second = first < 0 ? -1 : url.indexOf(':', first + 1);
        return second < 0 ? "(a JDBC URL)" : url.substring(0, second + 1);
    }
}
