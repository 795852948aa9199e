/**
 * Internal: a recognizer for the single-table writes ORMs and query builders send, read from the
 * analyzer's tokens without JSqlParser ({@link dev.fencing.internal.sql.recognize.CommonShapes}).
 * It only ever answers "this statement is one of my shapes, and here is what JSqlParser would
 * read in it", or "not mine"; every rule and decision stays with the analysis in
 * {@code dev.fencing.internal.sql}. Not public API; may change in any release.
 */
package dev.fencing.internal.sql.recognize;
