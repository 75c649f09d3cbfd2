/**
 * The JDK Flight Recorder events of the tables ({@code TableEvents} and its nested
 * {@code jdk.jfr.Event} classes): a table opened, blocks allocated, a table closed, a mapped
 * file opened, and a periodic statistics event per open table. The events and their fields are
 * listed in the guide "Observability".
 *
 * <p>Not exported: the hooks are called from the memory code, which every table goes through.
 */
package dev.bulkdata.storage.internal.events;
