package dev.bulkdata.storage;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;
class ProbeTest { @Test void runsOn25() { assertEquals(25, Probe.v()); } }
