/**
 * Events of fencing-jdbc for metrics: {@link dev.fencing.events.FencingListener} and the kinds it
 * reports. A public extension point: the listener interface only grows by methods with empty
 * defaults.
 */
package dev.fencing.events;
