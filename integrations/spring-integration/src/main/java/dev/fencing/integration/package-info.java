/**
 * Fenced Spring Integration locks: {@link dev.fencing.integration.FencedLockRegistry} hands out
 * locks whose holders carry their lease's fence on the locking thread until unlock. See
 * {@code docs/scheduling.md}.
 */
package dev.fencing.integration;
