package dev.fencing.events;

/** Why a statement was refused before anything was sent. */
public enum Refusal {
    /** A write to a fenced table with no fence in scope ({@code MissingFenceException}). */
    MISSING_FENCE,
    /** A write to a fenced table that cannot carry the check ({@code UnfenceableStatementException}). */
    UNFENCEABLE,
    /** Another {@code FencingException} before sending (an epoch row that cannot be claimed, ..). */
    OTHER
}
