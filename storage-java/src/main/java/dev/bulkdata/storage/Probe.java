package dev.bulkdata.storage;
/** probe */
public final class Probe { private Probe() {} /** @return version */ public static int v() { return Runtime.version().feature(); } }
