package dev.bulkdata.storage.kotlin

import com.sun.management.HotSpotDiagnosticMXBean
import java.lang.management.ManagementFactory
import java.nio.file.Files
import java.nio.file.Path

/**
 * The per-thread allocation counter this module's allocation tests read ([AllocationTest]),
 * and the machine it counted on.
 *
 * A JVM that cannot count answers -1 before and after a round, a difference of 0, so a test
 * would pass without measuring anything: [allocatedBytes] fails when the counter is
 * unsupported, switched off or negative, and [requireCounting] also checks that a known
 * allocation is seen. Failure messages end with [machine] (CPU, vector extensions, `UseAVX`).
 */
internal object AllocationCounter {
    private val THREADS = ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean

    /** The CPU flags that decide which vector instructions C2 may use (x86, then ARM). */
    private val VECTOR_FLAGS = setOf("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl",
        "asimd", "sve", "sve2")

    /** Keeps the probe's array reachable, so that escape analysis cannot remove it. */
    @Volatile
    @JvmField
    var sink: Any? = null

    /** The bytes this thread has allocated so far; fails if the JVM cannot count them. */
    fun allocatedBytes(): Long {
        val bytes = THREADS.currentThreadAllocatedBytes
        if (bytes < 0) throw AssertionError(cannotCount("the per-thread allocation counter answered $bytes"))
        return bytes
    }

    /** Fails unless accounting is supported and on, and a 64 KiB array is counted. */
    fun requireCounting() {
        if (!THREADS.isThreadAllocatedMemorySupported) {
            throw AssertionError(cannotCount("this JVM does not support per-thread allocation accounting"))
        }
        if (!THREADS.isThreadAllocatedMemoryEnabled) {
            throw AssertionError(cannotCount("per-thread allocation accounting is switched off"))
        }
        val size = 64 * 1024
        val before = allocatedBytes()
        sink = ByteArray(size)
        val counted = allocatedBytes() - before
        sink = null
        if (counted < size) throw AssertionError(cannotCount("a ByteArray($size) was counted as $counted bytes"))
    }

    private fun cannotCount(why: String) = "$why: an allocation test would measure nothing and pass; ${machine()}"

    /**
     * What decides the code C2 generates: `os.arch`, the CPU model and its vector extensions
     * (`avx2`, `avx512f`, ... from `/proc/cpuinfo` where there is one), and `UseAVX`.
     */
    fun machine(): String = buildString {
        append("machine: os.arch ").append(System.getProperty("os.arch"))
        append(", ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs")
        val cpuinfo = Path.of("/proc/cpuinfo")
        if (Files.isReadable(cpuinfo)) {
            val fields = runCatching { Files.readAllLines(cpuinfo) }.getOrDefault(emptyList())
                .mapNotNull { line -> line.indexOf(':').takeIf { it >= 0 }?.let { line.substring(0, it).trim() to line.substring(it + 1).trim() } }
            fields.firstOrNull { it.first == "model name" }?.let { append(", CPU ").append(it.second) }
            fields.firstOrNull { it.first == "flags" || it.first == "Features" }?.let { (_, flags) ->
                val vector = flags.split(Regex("\\s+")).filter { it in VECTOR_FLAGS }
                append(", vector flags ").append(if (vector.isEmpty()) "none" else vector.joinToString(" "))
                append(if ("avx512f" in vector) " (AVX-512)" else if ("avx2" in vector) " (AVX2, no AVX-512)" else "")
            }
        } else {
            append(", no /proc/cpuinfo")
        }
        val useAvx = runCatching {
            val option = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean::class.java).getVMOption("UseAVX")
            "${option.value} (${option.origin.toString().lowercase()})"
        }.getOrElse { "unknown (${it.javaClass.simpleName})" }
        append(", UseAVX=").append(useAvx)
        ManagementFactory.getRuntimeMXBean().inputArguments.lastOrNull { it.startsWith("-XX:UseAVX=") }
            ?.let { append(", JVM started with ").append(it) }
        append(", java ").append(System.getProperty("java.vm.version"))
    }
}
