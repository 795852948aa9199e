/**
 * Fenced ShedLock: {@link dev.fencing.shedlock.FencedLockProvider} runs each locked task with its
 * lease's fence on the task's thread, so that a task that outlived {@code lockAtMostFor} cannot
 * write to fenced tables after the node that took the lock over. With the fencing Spring Boot
 * starter, {@link dev.fencing.shedlock.FencedShedLockAutoConfiguration} provides the
 * {@code LockProvider} bean. See {@code docs/scheduling.md}.
 */
package dev.fencing.shedlock;
