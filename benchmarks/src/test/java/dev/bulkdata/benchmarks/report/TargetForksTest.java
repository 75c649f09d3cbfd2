package dev.bulkdata.benchmarks.report;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A target is judged only with 3 forks or more ({@link Forks#JUDGED}), so every benchmark a row
 * with a target compares must run that many: otherwise the committed run says "not judged".
 */
class TargetForksTest {
    @Test
    void everyBenchmarkOfARowWithATarget_runsEnoughForksToJudgeIt() throws ClassNotFoundException {
        List<String> tooFew = new ArrayList<>();
        int checked = 0;
        for (Comparisons.Comparison c : Comparisons.all()) {
            if (Double.isNaN(c.target())) {
                continue;
            }
            for (String name : new String[] {c.bulk(), c.peer()}) {
                checked++;
                int forks = forks(name);
                if (forks < Forks.JUDGED) {
                    tooFew.add(name + " (" + forks + " fork(s); row '" + c.workload() + "', " + c.subject() + " against "
                            + c.peerName() + ")");
                }
            }
        }
        assertTrue(checked > 20, "rows with targets: " + checked);
        assertEquals(List.of(), tooFew, "add @Fork(3) to these benchmarks");
    }

    /** The forks JMH runs for {@code Class.method} of the benchmarks package: the method's @Fork, else the class's. */
    private static int forks(String name) throws ClassNotFoundException {
        int dot = name.indexOf('.');
        Class<?> type = Class.forName(Report.PKG + name.substring(0, dot));
        String methodName = name.substring(dot + 1);
        for (Method m : type.getMethods()) {
            if (m.getName().equals(methodName) && m.isAnnotationPresent(Benchmark.class)) {
                Fork fork = m.getAnnotation(Fork.class);
                if (fork != null && fork.value() >= 0) {
                    return fork.value();
                }
                Fork onClass = type.getAnnotation(Fork.class);
                return onClass == null ? 5 : onClass.value(); // JMH's default is 5 forks
            }
        }
        throw new AssertionError("no @Benchmark method " + name);
    }
}
