/**
 * The memory a table is made of: its 16 KiB blocks ({@code BlockArena}, from an {@code AddressSpace} range or a
 * {@code MappedFile}'s regions) and {@code defragment}'s sort ({@code RowSort}).
 * Not exported: the engine and the file format use it (ARCHITECTURE.md, "Memory layout").
 */
package dev.bulkdata.storage.internal.memory;
