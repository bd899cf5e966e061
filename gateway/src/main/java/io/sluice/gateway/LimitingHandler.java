package io.sluice.gateway;

import io.sluice.http.HttpRateLimiter;
import io.sluice.http.HttpVerdict;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Decides every request before the handler it wraps (the reverse proxy) sees it: an admitted
 * request goes on with the rate-limit fields already on its response; any other is answered
 * here. The decision does not hold a server thread while the store answers. What follows an
 * answer that came from another thread (a Redis reply on Lettuce's I/O thread) runs on that
 * thread while at most {@link #FORWARD_WHILE_WAITING} other decisions of this handler are
 * waiting for the store, and on the server's threads when more are.
 *
 * <p>Why: handing the request back to the server's threads wakes one of them for every
 * request, and on a busy machine a woken thread waits for a CPU, which the tail of the latency
 * shows; going on where the answer arrived saves that wake-up. But the store's I/O thread reads
 * the replies of all decisions, and a reply that arrives while it forwards a request waits; so
 * when many decisions are waiting it hands the request back, and the forwarding never becomes
 * one thread's work for a busy gateway. The forwarding does not block (Jetty's proxy sends
 * with its client's non-blocking I/O).
 */
final class LimitingHandler extends Handler.Wrapper {

    private static final System.Logger LOGGER = System.getLogger(LimitingHandler.class.getName());

    /**
     * How many other decisions may wait for the store while the thread that completed one goes
     * on with its request: a few forwardings (about 0.05 ms each at the median) delay a reply
     * less than a server thread's wake-up does in the tail on a busy machine (with four
     * load-generating workers on two cores, the slowest 1% of the decisions handed back waited
     * 4.3 ms for that thread; docs/benchmarks-history.md).
     */
    static final int FORWARD_WHILE_WAITING = 4;

    private final HttpRateLimiter limiter;
    private final DecisionRecorder recorder;
    private final int forwardWhileWaiting;
    /** Decisions this handler waits for, that were not made at once. */
    private final AtomicInteger waiting = new AtomicInteger();

    LimitingHandler(HttpRateLimiter limiter, DecisionRecorder recorder, Handler next) {
        this(limiter, recorder, next, FORWARD_WHILE_WAITING);
    }

    /** With {@code forwardWhileWaiting} in place of {@link #FORWARD_WHILE_WAITING}, for tests. */
    LimitingHandler(HttpRateLimiter limiter, DecisionRecorder recorder, Handler next, int forwardWhileWaiting) {
        super(next);
        this.limiter = limiter;
        this.recorder = recorder;
        this.forwardWhileWaiting = forwardWhileWaiting;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        CompletionStage<HttpVerdict> verdict;
        try {
            verdict = limiter.decideAsync(new JettyRequestView(request));
        } catch (IllegalArgumentException e) {
            // A peer that is not an IP address (a Unix socket): nothing to limit it by.
            Response.writeError(request, response, callback, 400, e.getMessage());
            return true;
        }
        CompletableFuture<HttpVerdict> decision = verdict.toCompletableFuture();
        if (decision.isDone()) {
            // Decided in this thread (the local store, a block-cache hit, a lease): no hand-over.
            complete(request, response, callback, start, decision, null, false);
        } else {
            // Another thread completes the decision: the store's I/O thread (for Redis, Lettuce's
            // one event loop for all of the store's calls).
            DecisionTiming timing = DecisionTiming.begin(start);
            waiting.incrementAndGet();
            decision.whenComplete((decided, failure) -> {
                if (timing != null) {
                    timing.decided();
                }
                if (waiting.decrementAndGet() <= forwardWhileWaiting) {
                    // Few other decisions wait for a reply that this forwarding would hold up: no hand-over.
                    complete(request, response, callback, start, decision, timing, false);
                    return;
                }
                // Many other decisions wait, whose replies the store's I/O thread (Lettuce's one event
                // loop for all of a Redis store's calls) would read only after this forwarding.
                Executor serverThreads = request.getComponents().getExecutor();
                try {
                    serverThreads.execute(() -> complete(request, response, callback, start, decision, timing, true));
                } catch (RejectedExecutionException e) {
                    // The server's threads are stopping: answering here beats leaving the client waiting.
                    complete(request, response, callback, start, decision, timing, false);
                }
            });
        }
        return true;
    }

    /**
     * Answers or forwards the decided request; {@code timing}, when recorded, learns whether the
     * thread doing it is another than the one that completed the decision ({@code handedOff}).
     */
    private void complete(Request request, Response response, Callback callback, long start,
                          CompletableFuture<HttpVerdict> decision, @Nullable DecisionTiming timing, boolean handedOff) {
        if (timing != null) {
            timing.resumed(handedOff);
        }
        HttpVerdict decided;
        try {
            decided = decision.join();
        } catch (CompletionException | CancellationException e) {
            LOGGER.log(Level.ERROR, "deciding a request failed", e);
            Response.writeError(request, response, callback, 500);
            return;
        }
        recorder.record(decided, System.nanoTime() - start);
        respond(request, response, callback, decided);
        if (timing != null) {
            timing.responded();
        }
    }

    private void respond(Request request, Response response, Callback callback, HttpVerdict verdict) {
        HttpFields.Mutable headers = response.getHeaders();
        List<HttpVerdict.Header> fields = verdict.headers();
        for (int i = 0; i < fields.size(); i++) {
            HttpVerdict.Header header = fields.get(i);
            headers.add(header.name(), header.value());
        }
        if (!verdict.forward()) {
            response.setStatus(verdict.status());
            headers.put(HttpHeader.CONTENT_TYPE, HttpVerdict.PROBLEM_JSON);
            response.write(true, BufferUtil.toBuffer(Objects.requireNonNull(verdict.body()), StandardCharsets.UTF_8),
                    callback);
            return;
        }
        try {
            if (!super.handle(request, response, callback)) {
                Response.writeError(request, response, callback, 404);
            }
        } catch (Throwable t) {
            callback.failed(t);
        }
    }
}
