package dev.fencing.internal.txn;

import dev.fencing.internal.sql.Dialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** How {@link TransactionText} reads a text's effect on the transaction; the databases confirm it in the contract tests. */
class TransactionTextTest {

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "POSTGRESQL | SELECT 1                              | NONE",
            "POSTGRESQL | '  (SELECT 1)'                        | NONE",
            "POSTGRESQL | UPDATE orders SET a = 1               | NONE",
            "POSTGRESQL | ' -- c\n /* d /* e */ */ select 1'    | NONE",
            "POSTGRESQL | ''                                    | NONE",
            "POSTGRESQL | BEGIN                                 | BEGIN",
            "POSTGRESQL | begin work;                           | BEGIN",
            "POSTGRESQL | BEGIN ISOLATION LEVEL SERIALIZABLE    | BEGIN",
            "MARIADB    | START TRANSACTION                     | BEGIN",
            "MARIADB    | BEGIN NOT ATOMIC SELECT 1; END        | MAY_END",
            "MARIADB    | BEGIN NOT ATOMIC UPDATE t SET a = 1 END | MAY_END",
            "POSTGRESQL | COMMIT                                | COMMIT",
            "POSTGRESQL | END TRANSACTION                       | COMMIT",
            "MARIADB    | END                                   | MAY_END",
            "MARIADB    | COMMIT AND CHAIN                      | MAY_END",
            "POSTGRESQL | COMMIT PREPARED 'x'                   | MAY_END",
            "POSTGRESQL | ROLLBACK                              | ROLLBACK",
            "POSTGRESQL | ABORT                                 | ROLLBACK",
            "H2         | ROLLBACK TRANSACTION                  | ROLLBACK",
            "POSTGRESQL | ROLLBACK TO SAVEPOINT s1              | ROLLBACK_TO_SAVEPOINT",
            "MARIADB    | ROLLBACK WORK TO s1                   | ROLLBACK_TO_SAVEPOINT",
            "POSTGRESQL | ROLLBACK PREPARED 'x'                 | MAY_END",
            "POSTGRESQL | SAVEPOINT s1                          | SAVEPOINT",
            "POSTGRESQL | RELEASE SAVEPOINT s1                  | RELEASE_SAVEPOINT",
            "POSTGRESQL | CREATE TABLE t (id INT)               | NONE",
            "MARIADB    | CREATE TABLE t (id INT)               | IMPLICIT_COMMIT",
            "MARIADB    | CREATE TEMPORARY TABLE t (id INT)     | MAY_END",
            "H2         | drop table t                          | IMPLICIT_COMMIT",
            "GENERIC    | DROP TABLE t                          | MAY_END",
            "POSTGRESQL | SET search_path = x                   | NONE",
            "MARIADB    | SET autocommit = 1                    | MAY_END",
            "MARIADB    | SET NAMES utf8mb4                     | NONE",
            "POSTGRESQL | SELECT 1; COMMIT                      | MAY_END",
            "POSTGRESQL | 'SELECT 1;  ;'                        | NONE",
            "POSTGRESQL | CALL p()                              | MAY_END",
            "POSTGRESQL | '{call p()}'                          | MAY_END",
            "POSTGRESQL | DO $$ BEGIN COMMIT; END $$            | MAY_END",
            "POSTGRESQL | /* not closed BEGIN                   | MAY_END",
            "MARIADB    | /*!50000 COMMIT */                    | MAY_END",
            // MariaDB runs /*M!..*/ as SQL too: a COMMIT there is no comment
            "MARIADB    | /*M! COMMIT */                        | MAY_END",
            "MARIADB    | '/*M!100000 COMMIT */ SELECT 1'       | MAY_END",
            "MARIADB    | '# c\nCOMMIT'                         | COMMIT",
            "POSTGRESQL | LOCK TABLE t                          | MAY_END",
    })
    void readsTheEffect(Dialect dialect, String sql, TransactionText.Effect effect) {
        assertThat(TransactionText.of(sql.replace("\\n", "\n"), dialect)).isEqualTo(effect);
    }
}
