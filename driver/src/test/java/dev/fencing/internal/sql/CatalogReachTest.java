package dev.fencing.internal.sql;

import dev.fencing.internal.config.TableName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a catalog query takes the configured names: PostgreSQL's queries take the two name lists as
 * a pair of array parameters per use of the match, and the uses are counted from the parameters
 * the lexer finds, not from every {@code ?} character in the text.
 */
class CatalogReachTest {

    /** The parameter indexes a query was bound at, in order. */
    private final List<Integer> boundArrays = new ArrayList<>();

    @Test
    void aQuestionMarkInAStringACommentOrPgjdbcsEscapedOperatorIsNoArrayParameter() throws Exception {
        String sql = "SELECT c.relname, '?' AS mark -- is it? \n FROM pg_catalog.pg_class c /* ? or ?? */"
                + " WHERE lower(c.relname) = ANY (?::text[]) OR lower(c.relname) = ANY (?::text[])"
                + " OR c.reloptions ??| ARRAY['a?']";
        CatalogReach.rows(connection(), sql, CatalogReach::bindArrays,
                new CatalogReach.Names(List.of(TableName.of(null, "orders"))), row -> row.getString(1));
        assertThat(boundArrays).containsExactly(1, 2);
    }

    @Test
    void eachUseOfTheMatchTakesItsOwnPairOfArrays() throws Exception {
        String sql = "SELECT 1 WHERE 'a' = ANY (?::text[]) OR 'a' = ANY (?::text[])"
                + " UNION SELECT 2 WHERE 'b' = ANY (?::text[]) OR 'b' = ANY (?::text[])";
        CatalogReach.rows(connection(), sql, CatalogReach::bindArrays,
                new CatalogReach.Names(List.of(TableName.of(null, "orders"))), row -> row.getString(1));
        assertThat(boundArrays).containsExactly(1, 2, 3, 4);
    }

    /** A connection whose statements record where arrays are bound and answer no rows. */
    private Connection connection() {
        ResultSet noRows = proxy(ResultSet.class, (method, args) -> switch (method) {
            case "next", "wasNull" -> false;
            default -> null;
        });
        PreparedStatement statement = proxy(PreparedStatement.class, (method, args) -> {
            if (method.equals("setArray")) {
                boundArrays.add((Integer) args[0]);
            }
            return method.equals("executeQuery") ? noRows : null;
        });
        Array array = proxy(Array.class, (method, args) -> null);
        return proxy(Connection.class, (method, args) -> switch (method) {
            case "prepareStatement" -> statement;
            case "createArrayOf" -> array;
            default -> null;
        });
    }

    private interface Answer {
        Object answer(String method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(CatalogReachTest.class.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> answer.answer(method.getName(), args)));
    }
}
