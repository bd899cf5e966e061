package io.sluice.gateway;

import io.sluice.http.HttpRateLimiter;
import io.sluice.http.HttpVerdict;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * Decides every request before the handler it wraps (the reverse proxy) sees it: an admitted
 * request goes on with the rate-limit fields already on its response; any other is answered
 * here. The decision does not hold a server thread while the store answers, and what follows
 * it runs on the server's threads, never on the thread that completed the store's answer.
 */
final class LimitingHandler extends Handler.Wrapper {

    private static final System.Logger LOGGER = System.getLogger(LimitingHandler.class.getName());

    private final HttpRateLimiter limiter;
    private final DecisionRecorder recorder;

    LimitingHandler(HttpRateLimiter limiter, DecisionRecorder recorder, Handler next) {
        super(next);
        this.limiter = limiter;
        this.recorder = recorder;
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
            complete(request, response, callback, start, decision);
        } else {
            // The store's I/O thread completes the decision (Lettuce's one event loop for all of
            // a Redis store's calls): forwarding there would queue every other store reply behind
            // this request's proxying, so the request goes back to the server's threads.
            Executor serverThreads = request.getComponents().getExecutor();
            decision.whenComplete((decided, failure) -> {
                try {
                    serverThreads.execute(() -> complete(request, response, callback, start, decision));
                } catch (RejectedExecutionException e) {
                    // The server's threads are stopping: answering here beats leaving the client waiting.
                    complete(request, response, callback, start, decision);
                }
            });
        }
        return true;
    }

    private void complete(Request request, Response response, Callback callback, long start,
                          CompletableFuture<HttpVerdict> decision) {
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
    }

    private void respond(Request request, Response response, Callback callback, HttpVerdict verdict) {
        HttpFields.Mutable headers = response.getHeaders();
        for (HttpVerdict.Header header : verdict.headers()) {
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
