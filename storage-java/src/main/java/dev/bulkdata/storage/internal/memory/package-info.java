/**
 * The memory a table is made of: {@code BlockArena} hands out a table's 16 KiB blocks (one shared {@code Arena} per
 * table, freed at once on close), carved from an {@code AddressSpace} (one reserved range of address space where the
 * library has native access on Linux) or from a {@code MappedFile}'s regions (a table kept in a file);
 * {@code PagedInts} are the heap pages of ints that hold meta words and back-links where no range is reserved;
 * {@code RowSort} is the budgeted insertion sort of dense rows that {@code defragment} runs. Not exported: the engine
 * and the file format use it.
 */
package dev.bulkdata.storage.internal.memory;
