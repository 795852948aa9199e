/**
 * Internal: reading configuration sources and matching table names. Not public API; may change
 * in any release. The public configuration type is {@link dev.fencing.FencingConfig}.
 */
package dev.fencing.internal.config;
