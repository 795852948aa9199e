/**
 * The JDBC layer: connections whose writes to fenced tables carry the fencing check.
 *
 * <p>Public API: {@link dev.fencing.jdbc.FencingDataSource} (wraps a {@code DataSource}),
 * {@link dev.fencing.jdbc.FencingDriver} (the {@code jdbc:fencing:} URL prefix) and
 * {@link dev.fencing.jdbc.EpochTable} (the epoch table of epoch mode). Everything else in
 * this package is internal and may change in any release.
 *
 * <p>How it works: each SQL text is planned by a shared {@code StatementAnalyzer} (cached per
 * text). Texts that write no fenced table go to the driver unchanged. A fenced write goes with the
 * check spliced in and the current {@link dev.fencing.Fence} bound (prepared statements) or
 * rendered from its {@code long} (plain statements); without a fence in scope it is refused with
 * {@link dev.fencing.MissingFenceException}, and a write that cannot carry the check is refused
 * with {@link dev.fencing.UnfenceableStatementException}, in both cases before anything is sent.
 * A fenced write that changes fewer rows than it should is diagnosed according to
 * {@code fencing.on-zero-rows} and may raise {@link dev.fencing.StaleFenceException}.
 *
 * <p>Tables in {@code epoch} mode are not rewritten: each connection claims the epoch row of the
 * fence's lock before the tenure's first statement, and each transaction that writes such a table
 * checks and locks that row first (auto-commit writes run in a short transaction with their
 * check); see {@link dev.fencing.jdbc.EpochTable}.
 *
 * <p>Every object handed to the application is a hand-written wrapper (no reflection proxies):
 * connections, statements, result sets, database and parameter metadata, arrays.
 * {@code unwrap} returns only the wrapper itself, and every back-reference
 * ({@code getConnection()}, {@code getStatement()}, {@code getGeneratedKeys()}, metadata result
 * sets, nested result sets) leads to a wrapper, never to the driver's own objects, through which
 * a write would bypass the check.
 */
package dev.fencing.jdbc;
