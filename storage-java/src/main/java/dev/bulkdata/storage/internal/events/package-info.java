/**
 * The JDK Flight Recorder events of the tables ({@code TableEvents} and its nested {@code jdk.jfr.Event} classes),
 * listed with their fields in the guide "Observability". Not exported: the memory code, which every table goes
 * through, calls the hooks.
 */
package dev.bulkdata.storage.internal.events;
