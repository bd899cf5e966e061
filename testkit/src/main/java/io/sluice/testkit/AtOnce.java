package io.sluice.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Work on several threads that start together, as the kits' checks of concurrent calls need. */
final class AtOnce {

    /** One thread's part, given its index; returns what its calls answered. */
    interface Work<T> {
        List<T> run(int thread) throws Exception;
    }

    private AtOnce() {
    }

    /**
     * What {@code threads} threads answered, in thread order, each running its part of
     * {@code work} once all of them have started; a part that fails fails the check as
     * {@code failure}.
     */
    static <T> List<T> run(int threads, String failure, Work<T> work) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<T>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    return work.run(thread);
                }));
            }
            start.countDown();
            List<T> all = new ArrayList<>();
            for (Future<List<T>> result : results) {
                all.addAll(result.get());
            }
            return all;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError(failure, e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
