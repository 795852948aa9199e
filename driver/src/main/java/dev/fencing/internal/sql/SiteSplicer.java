package dev.fencing.internal.sql;

import dev.fencing.FencingConfig;

/**
 * Splices the fence check into one write found by {@link WriteSites}: the fence column and value
 * into what is inserted or assigned, the comparison into the WHERE clause. Only fixed text is
 * inserted, at token boundaries; the application's own characters stay as they are except for
 * {@code DEFAULT VALUES}, which becomes a column list and a row.
 */
final class SiteSplicer {

    private final SqlTokens tokens;
    private final Splice splice;
    private final String column;
    private final String operator;
    private final Dialect dialect;

    SiteSplicer(SqlTokens tokens, Splice splice, FencingConfig config, Dialect dialect) {
        this.tokens = tokens;
        this.splice = splice;
        this.column = config.column();
        this.operator = config.comparison().operator();
        this.dialect = dialect;
    }

    void rewrite(WriteSite site) {
        String qualifier = tokens.text(site.target().qualifier());
        String check = "COALESCE(" + qualifier + "." + column + ", 0) " + operator + " " + Splice.FENCE;
        String assignment = ", " + column + " = " + Splice.FENCE;
        switch (site.kind()) {
            case UPDATE -> {
                WriteSite.RowChange update = site.rowChange();
                splice.insert(tokens.end(update.set().last()), assignment);
                where(update.condition(), check);
            }
            case DELETE -> where(site.rowChange().condition(), check);
            case INSERT -> insert(site.insert(), assignment, check);
            default -> throw new IllegalStateException("not a fenceable write: " + site.kind());
        }
    }

    private void insert(WriteSite.Insert insert, String assignment, String check) {
        if (insert.columns() != null) {
            splice.insert(tokens.start(insert.columns().last()), ", " + column);
        }
        for (WriteSite.Span row : insert.rows()) {
            splice.insert(tokens.start(row.last()), ", " + Splice.FENCE);
        }
        if (insert.defaultValues() != null) {
            splice.replace(tokens.start(insert.defaultValues().first()), tokens.end(insert.defaultValues().last()),
                    "(" + column + ") VALUES (" + Splice.FENCE + ")");
        }
        String fenceValue = "CAST(" + Splice.FENCE + " AS " + dialect.fenceCastType() + ")";
        WriteSite.Query query = insert.query();
        if (query != null && query.selectList() != null) {
            splice.insert(tokens.end(query.selectList().last()), ", " + fenceValue);
        } else if (query != null) {
            splice.insert(tokens.start(query.first()), "SELECT fencing_src.*, " + fenceValue + " FROM (");
            splice.insert(tokens.end(query.last()), ") fencing_src");
        }
        if (insert.conflictUpdate() != null) {
            splice.insert(tokens.end(insert.conflictUpdate().set().last()), assignment);
            where(insert.conflictUpdate().condition(), check);
        }
    }

    private void where(WriteSite.Condition condition, String check) {
        WriteSite.Clause where = condition.where();
        if (where != null) {
            splice.insert(tokens.start(where.keyword() + 1), "(");
            splice.insert(tokens.end(where.last()), ") AND " + check);
        } else {
            splice.insert(tokens.end(condition.bodyLast()), " WHERE " + check);
        }
    }
}
