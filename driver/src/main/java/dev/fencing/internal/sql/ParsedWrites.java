package dev.fencing.internal.sql;

import dev.fencing.internal.config.Identifiers;
import dev.fencing.internal.config.TableName;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.delete.ParenthesedDelete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.insert.ParenthesedInsert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.ParenthesedUpdate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import net.sf.jsqlparser.statement.upsert.Upsert;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The writes one parsed statement makes, found by walking the whole tree: a data-modifying CTE
 * sits under a SELECT, an INSERT or another write. Writes are listed in text order (the CTEs of a
 * statement before the statement itself), the order in which {@link WriteSites} finds them in
 * the text, so that the two readings can be checked against each other.
 */
final class ParsedWrites {

    enum Kind { INSERT, UPDATE, DELETE, OTHER }

    /** One write the parser found. */
    record ParsedWrite(Kind kind, TableName target, String description, boolean setsColumn,
                       boolean multiTable, boolean mysqlUpsert) {
    }

    /** True when the statement is a kind whose writes this class can list (else unknown). */
    final boolean understood;
    final List<ParsedWrite> writes;
    /** Tables a SELECT .. INTO creates or fills. */
    final List<TableName> selectIntoTargets;

    private ParsedWrites(boolean understood, List<ParsedWrite> writes, List<TableName> selectIntoTargets) {
        this.understood = understood;
        this.writes = writes;
        this.selectIntoTargets = selectIntoTargets;
    }

    /** One write read without JSqlParser, as JSqlParser would list it (see {@code RecognizedStatement}). */
    static ParsedWrites single(ParsedWrite write) {
        return new ParsedWrites(true, List.of(write), List.of());
    }

    /** True when the column {@code written} (quotes allowed) is the fence column, {@code fenceColumn} in lower case. */
    static boolean isFenceColumn(String written, String fenceColumn) {
        return Identifiers.unquote(written).toLowerCase(Locale.ROOT).equals(fenceColumn);
    }

    static ParsedWrites of(Statement statement, String fenceColumn) {
        Walker walker = new Walker(fenceColumn.toLowerCase(Locale.ROOT));
        boolean understood = walker.statement(statement) && !walker.unknownWith;
        return new ParsedWrites(understood, walker.writes, walker.intoTargets);
    }

    private static final class Walker {
        final String column;
        final List<ParsedWrite> writes = new ArrayList<>();
        final List<TableName> intoTargets = new ArrayList<>();
        boolean unknownWith;

        Walker(String column) {
            this.column = column;
        }

        boolean statement(Statement statement) {
            if (statement instanceof Select select) {
                select(select);
                return true;
            }
            if (statement instanceof Update update) {
                withItems(update.getWithItemsList());
                boolean multi = update.getStartJoins() != null && !update.getStartJoins().isEmpty();
                writes.add(new ParsedWrite(Kind.UPDATE, name(update.getTable()), "UPDATE",
                        assigns(update.getUpdateSets()), multi, false));
                return true;
            }
            if (statement instanceof Delete delete) {
                withItems(delete.getWithItemsList());
                boolean multi = delete.getTables() != null && !delete.getTables().isEmpty()
                        && !deletesItsOnlyTable(delete);
                writes.add(new ParsedWrite(Kind.DELETE, name(delete.getTable()), "DELETE", false, multi, false));
                return true;
            }
            if (statement instanceof Insert insert) {
                withItems(insert.getWithItemsList());
                if (insert.getSelect() != null) {
                    select(insert.getSelect());
                }
                boolean setsColumn = insert.getColumns() != null && insert.getColumns().stream().anyMatch(this::isFenceColumn);
                setsColumn |= assigns(insert.getSetUpdateSets());
                setsColumn |= assigns(insert.getDuplicateUpdateSets());
                if (insert.getConflictAction() != null) {
                    setsColumn |= assigns(insert.getConflictAction().getUpdateSets());
                }
                boolean mysqlUpsert = insert.getDuplicateUpdateSets() != null && !insert.getDuplicateUpdateSets().isEmpty();
                writes.add(new ParsedWrite(Kind.INSERT, name(insert.getTable()), "INSERT", setsColumn, false, mysqlUpsert));
                return true;
            }
            if (statement instanceof Merge merge) {
                writes.add(new ParsedWrite(Kind.OTHER, name(merge.getTable()), "MERGE", false, false, false));
                return true;
            }
            if (statement instanceof Upsert upsert) {
                writes.add(new ParsedWrite(Kind.OTHER, name(upsert.getTable()), "REPLACE/UPSERT", false, false, false));
                return true;
            }
            if (statement instanceof Truncate truncate) {
                List<Table> tables = truncate.getTables() != null && !truncate.getTables().isEmpty()
                        ? truncate.getTables() : List.of(truncate.getTable());
                for (Table table : tables) {
                    writes.add(new ParsedWrite(Kind.OTHER, name(table), "TRUNCATE", false, false, false));
                }
                return true;
            }
            return false;
        }

        /** {@code DELETE o1_0 FROM orders o1_0 ..}: one table deleted from, the one table read. */
        static boolean deletesItsOnlyTable(Delete delete) {
            if (delete.getTables().size() != 1 || (delete.getJoins() != null && !delete.getJoins().isEmpty())
                    || (delete.getUsingList() != null && !delete.getUsingList().isEmpty()) || delete.getTable() == null) {
                return false;
            }
            Table deleted = delete.getTables().get(0);
            if (deleted.getSchemaName() != null) {
                return false;
            }
            String named = Identifiers.unquote(deleted.getName()).toLowerCase(Locale.ROOT);
            Table read = delete.getTable();
            String readAs = read.getAlias() != null
                    ? Identifiers.unquote(read.getAlias().getName()).toLowerCase(Locale.ROOT)
                    : Identifiers.unquote(read.getName()).toLowerCase(Locale.ROOT);
            return named.equals(readAs);
        }

        void select(Select select) {
            withItems(select.getWithItemsList());
            if (select instanceof PlainSelect plain && plain.getIntoTables() != null) {
                plain.getIntoTables().forEach(t -> intoTargets.add(name(t)));
            } else if (select instanceof SetOperationList setOperations && setOperations.getSelects() != null) {
                setOperations.getSelects().forEach(this::select);
            } else if (select instanceof ParenthesedSelect parenthesed && parenthesed.getSelect() != null) {
                select(parenthesed.getSelect());
            }
        }

        void withItems(List<WithItem<?>> items) {
            if (items == null) {
                return;
            }
            for (WithItem<?> item : items) {
                Object body = item.getParenthesedStatement();
                if (body instanceof ParenthesedInsert insert) {
                    statement(insert.getInsert());
                } else if (body instanceof ParenthesedUpdate update) {
                    statement(update.getUpdate());
                } else if (body instanceof ParenthesedDelete delete) {
                    statement(delete.getDelete());
                } else if (body instanceof Select select) {
                    select(select);
                } else if (body != null) {
                    unknownWith = true;
                }
            }
        }

        boolean assigns(List<UpdateSet> sets) {
            if (sets == null) {
                return false;
            }
            for (UpdateSet set : sets) {
                if (set.getColumns() != null && set.getColumns().stream().anyMatch(this::isFenceColumn)) {
                    return true;
                }
            }
            return false;
        }

        boolean isFenceColumn(Column column) {
            return ParsedWrites.isFenceColumn(column.getColumnName(), this.column);
        }

        static TableName name(Table table) {
            if (table == null || table.getName() == null) {
                return TableName.of(null, "");
            }
            return TableName.of(table.getSchemaName(), table.getName());
        }
    }
}
