package dev.fencing.internal.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * How the analyzer reads a SQL text, laid open for the differential test that asks the databases
 * how they read the same text: where statements start and end, which pieces are code, strings,
 * quoted identifiers or executable comments, and which statements the analyzer takes for dynamic
 * SQL. It runs the analyzer's own lexer and its own statement split (top-level semicolons), so a
 * disagreement found through it is a disagreement of the analyzer. Internal; may change in any
 * release.
 */
public final class SqlReading {

    /** What a significant piece of the text is, as the lexer reads it. */
    public enum TokenKind {
        WORD, QUOTED_IDENTIFIER, STRING, NUMBER, PARAMETER, PUNCTUATION, OPERATOR,
        /** MariaDB's {@code /*! .. *}{@code /}: a comment that the server runs as code. */
        EXECUTABLE_COMMENT,
        JDBC_ESCAPE_OPEN
    }

    /** One significant token: its kind, its text, and where it is in the whole text. */
    public record Token(TokenKind kind, String text, int start, int end) {
    }

    /**
     * One statement: its text from just after the previous top-level semicolon to just before the
     * next (comments around it included), and its tokens. {@code dynamic} is true when the analyzer
     * treats it as a procedure call or dynamic SQL (whose strings may run as code).
     */
    public record Statement(String text, int start, int end, List<Token> tokens, boolean dynamic) {
    }

    private final String sql;
    private final String unreadable;
    private final List<Statement> statements;

    private SqlReading(String sql, String unreadable, List<Statement> statements) {
        this.sql = sql;
        this.unreadable = unreadable;
        this.statements = statements;
    }

    /** The reading of {@code sql} with {@code dialect}'s rules; never throws for bad SQL. */
    public static SqlReading of(String sql, Dialect dialect) {
        SqlTokens tokens;
        try {
            tokens = SqlTokens.lex(sql, dialect);
        } catch (SqlTokens.UnreadableSqlException e) {
            return new SqlReading(sql, e.getMessage(), List.of());
        }
        List<Statement> statements = new ArrayList<>();
        int first = 0;
        int rawStart = 0;
        for (int i = 0; i <= tokens.size(); i++) {
            if (i == tokens.size() || (tokens.kind(i) == SqlTokens.SEMICOLON && tokens.depth(i) == 0)) {
                int rawEnd = i == tokens.size() ? sql.length() : tokens.start(i);
                if (i > first) {
                    List<Token> list = new ArrayList<>(i - first);
                    for (int t = first; t < i; t++) {
                        list.add(new Token(kindOf(tokens.kind(t)), tokens.text(t), tokens.start(t), tokens.end(t)));
                    }
                    statements.add(new Statement(sql.substring(rawStart, rawEnd), rawStart, rawEnd, List.copyOf(list),
                            StatementHead.isDynamic(tokens, first)));
                }
                rawStart = rawEnd + 1;
                first = i + 1;
            }
        }
        return new SqlReading(sql, null, List.copyOf(statements));
    }

    public String sql() {
        return sql;
    }

    /** True when the lexer can read the text (an unreadable text is refused whenever it may matter). */
    public boolean readable() {
        return unreadable == null;
    }

    /** Why the text cannot be read; null when it can. */
    public String unreadable() {
        return unreadable;
    }

    /** The statements that hold at least one token, in order. */
    public List<Statement> statements() {
        return statements;
    }

    private static TokenKind kindOf(byte kind) {
        return switch (kind) {
            case SqlTokens.WORD -> TokenKind.WORD;
            case SqlTokens.QUOTED_IDENTIFIER -> TokenKind.QUOTED_IDENTIFIER;
            case SqlTokens.STRING -> TokenKind.STRING;
            case SqlTokens.NUMBER -> TokenKind.NUMBER;
            case SqlTokens.PARAMETER -> TokenKind.PARAMETER;
            case SqlTokens.OPEN, SqlTokens.CLOSE, SqlTokens.COMMA, SqlTokens.SEMICOLON, SqlTokens.DOT -> TokenKind.PUNCTUATION;
            case SqlTokens.EXECUTABLE_COMMENT -> TokenKind.EXECUTABLE_COMMENT;
            case SqlTokens.JDBC_ESCAPE_OPEN -> TokenKind.JDBC_ESCAPE_OPEN;
            default -> TokenKind.OPERATOR;
        };
    }
}
