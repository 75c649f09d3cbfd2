/**
 * Table tags, the 12 bits of a handle that name its table: {@code TagRegistry} leases a tag to each open table,
 * remembers the names and handle layouts of the tags' tables (so that a rejection names the table a handle came from,
 * open or closed), and keeps each tag's generation floor, so that a table under a reused tag never accepts an earlier
 * table's handles; a {@code TagLease} is one table's hold on its tag. Not exported: process-wide state the engine and
 * the file format share.
 */
package dev.bulkdata.storage.internal.tags;
