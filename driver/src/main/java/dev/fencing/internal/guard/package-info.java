/**
 * The database guard's internals: per-dialect trigger DDL, its verification, the session fence
 * and the mapping of the triggers' SQLStates. <strong>Internal: may change in any release.</strong>
 * The public entry point is {@link dev.fencing.jdbc.DatabaseGuard}; the H2 trigger class
 * {@link dev.fencing.internal.guard.H2GuardTrigger} is public only because H2 instantiates it by name.
 */
package dev.fencing.internal.guard;
