package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The threads that complete a store's decision stages ({@link Store#tryAcquire}, the path of
 * {@code RateLimiter.decideAsync}): where what a caller chains to them runs. Only a stage not
 * answered yet when its caller chained to it tells; what is chained to one answered already
 * runs on the caller's own thread.
 */
public final class StageThreads {

    /** Decisions tried at most to find the stages asked for. */
    private static final int TRIED = 200;

    private StageThreads() {
    }

    /**
     * The names of the threads that completed {@code stages} stages of {@code store}, each a
     * decision of one token on a key of its own ({@code keyPrefix} and a number) under
     * {@code limit}, which must admit it; fewer when fewer of {@value #TRIED} were still out when
     * chained to.
     */
    public static List<String> of(Store store, String keyPrefix, Limit limit, int stages) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < TRIED && names.size() < stages; i++) {
            CompletableFuture<Decision> stage = store.tryAcquire(keyPrefix + i, List.of(limit), 1).toCompletableFuture();
            CompletableFuture<String> thread = stage.thenApply(decision -> Thread.currentThread().getName());
            if (!stage.isDone()) {
                names.add(thread.join());
            }
            assertThat(stage.join().allowed()).as("decision %s", i).isTrue();
        }
        return names;
    }
}
