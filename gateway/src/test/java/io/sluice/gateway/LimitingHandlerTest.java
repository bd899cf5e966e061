package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyLimiter;
import io.sluice.core.StoreGuard;
import io.sluice.http.HttpRateLimiter;
import io.sluice.store.local.LocalStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where the handler wrapped by the {@link LimitingHandler} runs: on the thread that completed
 * the store's decision (for Redis, Lettuce's one I/O thread for all of the store's replies)
 * while few other decisions wait, on the server's threads when more do, and without a
 * hand-over when the decision was made at once.
 */
class LimitingHandlerTest {

    private static final String STORE_THREAD = "store-io";
    private static final String POLICY = """
            tiers:
              - name: free
                limits:
                  - name: per-minute
                    algorithm: fixed-window
                    permits: 100
                    period: 1m
            api-keys:
              keys:
                - key: "the-key"
                  tier: free
                - key: "another-key"
                  tier: free
            """;

    private final ExecutorService storeThread = Executors.newSingleThreadExecutor(task -> new Thread(task, STORE_THREAD));
    private final AtomicReference<String> forwardedOn = new AtomicReference<>();
    /** The thread that forwarded each request, by its API key. */
    private final Map<String, String> forwardedOnByKey = new ConcurrentHashMap<>();
    /** Counted down once the limiting handler returned: the decision is awaited by then. */
    private CountDownLatch handled = new CountDownLatch(1);
    private final HttpClient http = HttpClient.newHttpClient();
    private Server server;

    @AfterEach
    void stop() throws Exception {
        server.stop();
        storeThread.shutdownNow();
    }

    @Test
    void aDecisionCompletedOnTheStoresThreadWhileNoOtherWaitsIsForwardedThere() throws Exception {
        start(new CompletingElsewhere(LocalStore.builder().build()));

        assertThat(get().statusCode()).isEqualTo(200);
        assertThat(forwardedOn.get()).isEqualTo(STORE_THREAD);
    }

    /**
     * Two requests wait for the store, which answers them one after the other on its thread:
     * the first answer comes while the second request still waits, one more than this handler
     * forwards beside, so the first goes back to the server's threads; the second, the last
     * one waiting, goes on where its answer came.
     */
    @Test
    void aDecisionCompletedWhileMoreThanTheAllowedOthersWaitIsForwardedOnTheServersThreads() throws Exception {
        // Which request's answer the store's thread completes first is not fixed: one went each way.
        assertThat(twoRequestsForwardedOn(0)).hasSize(2).containsOnlyOnce(STORE_THREAD)
                .anySatisfy(thread -> assertThat(thread).startsWith("qtp"));
    }

    /** As above with the gateway's setting: one other decision waiting is not enough to hand a request back. */
    @Test
    void aDecisionCompletedWhileAFewOthersWaitIsForwardedOnTheStoresThread() throws Exception {
        assertThat(twoRequestsForwardedOn(LimitingHandler.FORWARD_WHILE_WAITING))
                .containsExactly(STORE_THREAD, STORE_THREAD);
    }

    /** With a recording on, a decision from the store's thread leaves its timing: where its time went, and the hand-off. */
    @Test
    void aRecordingGetsTheTimingOfADecisionFromTheStore() throws Exception {
        start(new CompletingElsewhere(LocalStore.builder().build()));
        RecordedEvent timing;
        try (RecordingStream recording = new RecordingStream()) {
            recording.enable(DecisionTiming.NAME);
            CompletableFuture<RecordedEvent> recorded = new CompletableFuture<>();
            recording.onEvent(DecisionTiming.NAME, recorded::complete);
            recording.startAsync();
            assertThat(get().statusCode()).isEqualTo(200);
            // The store's thread commits the event once the forwarding returned: the client may have its answer first.
            timing = recorded.get(10, TimeUnit.SECONDS);
        }

        // The store answers only once the handler returned: its part is never empty.
        assertThat(timing.getDuration("store")).isPositive();
        assertThat(timing.getDuration("decideCall")).isPositive();
        assertThat(timing.getDuration("handOff").isNegative()).isFalse();
        assertThat(timing.getDuration("respond")).isPositive();
        // The only decision waiting: forwarded on the store's thread, without a hand-off.
        assertThat(timing.getBoolean("handedOff")).isFalse();
        assertThat(timing.getThread().getJavaName()).isEqualTo(STORE_THREAD);
    }

    @Test
    void aDecisionMadeAtOnceIsForwardedOnTheThreadThatDecided() throws Exception {
        start(LocalStore.builder().build());

        assertThat(get().statusCode()).isEqualTo(200);
        assertThat(forwardedOn.get()).isNotNull().startsWith("qtp");
    }

    private void start(Store store) throws Exception {
        start(store, LimitingHandler.FORWARD_WHILE_WAITING);
    }

    private void start(Store store, int forwardWhileWaiting) throws Exception {
        // The store below answers only once the handler returned, which a loaded machine may
        // delay past the default timeout (class loading of the first request): a timed-out
        // decision would be a 503 and say nothing about threads.
        PolicyLimiter policy = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "test")).store(store)
                .guard(StoreGuard.custom().timeout(Duration.ofSeconds(10)).build()).build();
        HttpRateLimiter limiter = HttpRateLimiter.custom(policy).build();
        Handler upstream = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                forwardedOn.set(Thread.currentThread().getName());
                forwardedOnByKey.put(String.valueOf(request.getHeaders().get("X-Api-Key")),
                        Thread.currentThread().getName());
                response.setStatus(200);
                callback.succeeded();
                return true;
            }
        };
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        LimitingHandler limiting = new LimitingHandler(limiter,
                new DecisionRecorder(new SimpleMeterRegistry(), new TopDenied(10)), upstream, forwardWhileWaiting);
        server.setHandler(new Handler.Wrapper(limiting) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                boolean handling = super.handle(request, response, callback);
                handled.countDown();
                return handling;
            }
        });
        server.start();
    }

    /**
     * Two requests of two keys at once through a handler that forwards beside at most
     * {@code forwardWhileWaiting} other waiting decisions, to a store that answers them one
     * after the other on its thread; both admitted. The threads that forwarded them.
     */
    private Collection<String> twoRequestsForwardedOn(int forwardWhileWaiting) throws Exception {
        handled = new CountDownLatch(2);
        start(new CompletingElsewhere(LocalStore.builder().build()), forwardWhileWaiting);

        CompletableFuture<HttpResponse<String>> first = getAsync("the-key");
        CompletableFuture<HttpResponse<String>> second = getAsync("another-key");

        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        return forwardedOnByKey.values();
    }

    private HttpResponse<String> get() throws Exception {
        return http.send(request("the-key"), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> getAsync(String key) {
        return http.sendAsync(request(key), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String key) {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/things"))
                .header("X-Api-Key", key).build();
    }

    /**
     * A store whose answers complete on a thread of its own, as a network store's do, and
     * only once the limiting handler returned, so that the handler cannot find them done.
     */
    private final class CompletingElsewhere implements Store {

        private final Store store;

        CompletingElsewhere(Store store) {
            this.store = store;
        }

        @Override
        public StoreCapabilities capabilities() {
            // Not in process: its answers come from another thread, as a network store's do.
            StoreCapabilities inner = store.capabilities();
            return new StoreCapabilities(inner.serverClock(), inner.atomicMultiLimit(), inner.expiry(),
                    inner.leasing(), false);
        }

        @Override
        public boolean supports(Algorithm algorithm) {
            return store.supports(algorithm);
        }

        @Override
        public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
            Decision decision = store.tryAcquire(key, limits, cost).toCompletableFuture().join();
            return CompletableFuture.supplyAsync(() -> {
                try {
                    if (!handled.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the limiting handler did not return");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                return decision;
            }, storeThread);
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
