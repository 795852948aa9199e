/**
 * Internal: which threads have a fence in scope, read only to explain a refused write. Not public
 * API; may change in any release. Under the javaagent this package sits on the bootstrap class
 * path beside {@link dev.fencing.Fence}, so its types are public: classes of other loaders (the
 * driver's exceptions) reach them across the loader boundary, where package-private access fails.
 */
package dev.fencing.internal.fence;
