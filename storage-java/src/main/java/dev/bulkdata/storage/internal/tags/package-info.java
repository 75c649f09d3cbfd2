/**
 * Table tags, the 12 bits of a handle that name its table: {@code TagRegistry} leases them, names their tables and
 * keeps each tag's generation floor; a {@code TagLease} is one table's hold on its tag. Not exported: process-wide
 * state the engine and the file format share (ARCHITECTURE.md, "Handles and tags").
 */
package dev.bulkdata.storage.internal.tags;
