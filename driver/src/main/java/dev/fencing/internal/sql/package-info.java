/**
 * Internal: deciding what a SQL string does to fenced tables and splicing the fence check into
 * it. {@link dev.fencing.internal.sql.StatementAnalyzer} turns SQL text into an immutable, fence-independent
 * {@link dev.fencing.internal.sql.FencePlan}, cached per text. Not public API; may change in any release.
 */
package dev.fencing.internal.sql;
