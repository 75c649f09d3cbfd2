package dev.bulkdata.storage.inspector;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The tests' owner thread (the test's own thread): sends a request from a client thread and
 * polls the inspector until its answer arrives, as a program's frame loop would.
 */
final class Owner {
    private static final ExecutorService CLIENTS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-client");
        t.setDaemon(true);
        return t;
    });

    private Owner() {
    }

    static <T> T call(Inspector inspector, Callable<T> request) throws Exception {
        Future<T> answer = CLIENTS.submit(request);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!answer.isDone()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("no answer within 20 s");
            }
            inspector.poll();
            Thread.sleep(1);
        }
        return answer.get();
    }

    static <T> Future<T> async(Callable<T> request) {
        return CLIENTS.submit(request);
    }
}
