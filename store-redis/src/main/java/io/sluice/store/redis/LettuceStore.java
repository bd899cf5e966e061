package io.sluice.store.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.Decisions;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The Redis store: one {@code EVALSHA} of {@link LuaScript#DECIDE} per decision, over one
 * Lettuce connection (standalone or cluster), with Redis {@code TIME} as the clock.
 */
final class LettuceStore implements Store {

    /** Redis answers per limit: outcome, remaining, resetAfter, retryAfter. */
    private static final int REPLY_FIELDS = 4;
    private static final long DENIED = 0;
    private static final long ALLOWED = 1;
    private static final long COST_EXCEEDS_CAPACITY = 2;
    private static final int ARGS_PER_LIMIT = 4;
    /** An admitted transition's state stays in Redis; the Java side never sees it. */
    private static final long[] STATE_IN_REDIS = new long[0];

    /** The commands of one open connection, and how to close it (and the client the store owns). */
    record Connection(RedisScriptingAsyncCommands<String, String> commands, Runnable closer) {
    }

    /** A {@code SCRIPT LOAD} and when it was sent (System.nanoTime). */
    private record ScriptLoad(long startedAt, CompletableFuture<String> done) {
    }

    private final RedisScriptingAsyncCommands<String, String> commands;
    private final Runnable closer;
    private final Duration commandTimeout;
    private final @Nullable TimeSource clockForTesting;
    /** The latest load of each script; guarded by this. */
    private @Nullable ScriptLoad decideLoad;
    private @Nullable ScriptLoad holdsLoad;

    /**
     * @param closer closes the connection, and the client when the store created it
     * @param clockForTesting the test-only clock override, or {@code null} for Redis {@code TIME}
     */
    LettuceStore(RedisScriptingAsyncCommands<String, String> commands, Runnable closer,
                 Duration commandTimeout, @Nullable TimeSource clockForTesting) {
        this.commands = commands;
        this.closer = closer;
        this.commandTimeout = commandTimeout;
        this.clockForTesting = clockForTesting;
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, true, true);
    }


    @Override

    public boolean supports(Algorithm algorithm) {

        return Algorithms.isBuiltIn(algorithm);

    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        String hashTag = RedisKeys.hashTag(key);
        String[] keys = new String[limits.size()];
        String[] args = new String[2 + ARGS_PER_LIMIT * limits.size()];
        args[0] = clock();
        args[1] = Long.toString(cost);
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            keys[i] = RedisKeys.key(hashTag, limit.name());
            int a = 2 + ARGS_PER_LIMIT * i;
            args[a] = Integer.toString(algorithmId(limit));
            args[a + 1] = Long.toString(limit.permits());
            args[a + 2] = Long.toString(limit.burst());
            args[a + 3] = Long.toString(limit.periodMicros());
        }
        return this.<List<Object>>run(LuaScript.DECIDE, ScriptOutputType.MULTI, keys, args)
                .thenApply(reply -> decision(limits, reply));
    }

    @Override
    public CompletionStage<Boolean> holdsState(String key, Limit limit) {
        String[] keys = {RedisKeys.key(RedisKeys.hashTag(key), limit.name())};
        return this.<Long>run(LuaScript.HOLDS, ScriptOutputType.INTEGER, keys, new String[] {clock()})
                .thenApply(held -> held == 1L);
    }

    @Override
    public void close() {
        closer.run();
    }

    /**
     * Runs a script: {@code EVALSHA}, and only when a node answers {@code NOSCRIPT} (it never
     * ran the script: restarted, failed over, flushed) {@code SCRIPT LOAD} (on every node of a
     * cluster) and {@code EVALSHA} once more. Nothing else is retried: a command that failed
     * or timed out may have run, and running it again could charge a request twice. A
     * timed-out command is cancelled so that Lettuce never sends it after a reconnect.
     */
    private <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys,
                                         String[] args) {
        CompletableFuture<T> result = new CompletableFuture<>();
        long sentAt = System.nanoTime();
        RedisFuture<T> first = commands.evalsha(script.sha1(), type, keys, args);
        AtomicReference<RedisFuture<T>> inFlight = new AtomicReference<>(first);
        first.whenComplete((reply, error) -> {
            if (error == null || !(unwrap(error) instanceof RedisNoScriptException)) {
                complete(result, reply, error);
                return;
            }
            // Retried even when the load failed: in a cluster it fails when any node is down,
            // yet may have reached the node that answered NOSCRIPT.
            loaded(script, sentAt).whenComplete((sha, loadError) -> {
                if (result.isDone()) {
                    return;
                }
                RedisFuture<T> retry = commands.evalsha(script.sha1(), type, keys, args);
                inFlight.set(retry);
                if (result.isDone()) {
                    retry.cancel(false);
                }
                retry.whenComplete((retried, retryError) -> complete(result, retried, retryError));
            });
        });
        result.orTimeout(commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
        CompletableFuture<T> outcome = new CompletableFuture<>();
        result.whenComplete((reply, error) -> {
            if (error == null) {
                outcome.complete(reply);
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof TimeoutException) {
                // Never null: it holds the first command, then the retry.
                Objects.requireNonNull(inFlight.get(), "inFlight").cancel(false);
                outcome.completeExceptionally(new StoreUnavailableException(
                        "Redis did not answer within " + commandTimeout.toMillis() + " ms", cause));
            } else {
                outcome.completeExceptionally(new StoreUnavailableException("Redis failed: " + cause, cause));
            }
        });
        return outcome;
    }

    /**
     * A {@code SCRIPT LOAD} of the script that started after a command sent at {@code sentAt}
     * (System.nanoTime) was sent, so that it runs after that command on its node: the one
     * already under way when there is one, else a new one. After a restart or a flush, the
     * many decisions in flight that all get {@code NOSCRIPT} share one load.
     */
    private synchronized CompletableFuture<String> loaded(LuaScript script, long sentAt) {
        ScriptLoad load = script == LuaScript.DECIDE ? decideLoad : holdsLoad;
        if (load == null || load.startedAt() - sentAt < 0) {
            long startedAt = System.nanoTime();
            load = new ScriptLoad(startedAt, commands.scriptLoad(script.body()).toCompletableFuture());
            if (script == LuaScript.DECIDE) {
                decideLoad = load;
            } else {
                holdsLoad = load;
            }
        }
        return load.done();
    }

    private static <T> void complete(CompletableFuture<T> result, T reply, Throwable error) {
        if (error == null) {
            result.complete(reply);
        } else {
            result.completeExceptionally(error);
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private String clock() {
        return clockForTesting == null ? "redis" : "test:" + clockForTesting.nowMicros();
    }

    private static int algorithmId(Limit limit) {
        if (!Algorithms.isBuiltIn(limit.algorithm())) {
            throw new IllegalArgumentException("the Redis store runs only the built-in algorithms of "
                    + "io.sluice.algorithms.Algorithms, not '" + limit.algorithm().name() + "' of limit "
                    + limit.name());
        }
        // The scripts select the algorithm by its stable id, never by a position in a list.
        return limit.algorithm().id();
    }


    private static Decision decision(List<Limit> limits, List<Object> reply) {
        if (reply.size() != REPLY_FIELDS * limits.size()) {
            throw new StoreUnavailableException("unexpected reply from the Redis script: " + reply);
        }
        List<Transition> transitions = new ArrayList<>(limits.size());
        for (int i = 0; i < limits.size(); i++) {
            int f = REPLY_FIELDS * i;
            long outcome = (Long) reply.get(f);
            long remaining = (Long) reply.get(f + 1);
            long resetAfter = (Long) reply.get(f + 2);
            long retryAfter = (Long) reply.get(f + 3);
            if (outcome == ALLOWED) {
                transitions.add(Transition.allowed(remaining, resetAfter, STATE_IN_REDIS));
            } else if (outcome == DENIED) {
                transitions.add(Transition.denied(remaining, resetAfter, retryAfter, null));
            } else if (outcome == COST_EXCEEDS_CAPACITY) {
                transitions.add(Transition.costExceedsCapacity(remaining, resetAfter, null));
            } else {
                throw new StoreUnavailableException("unexpected outcome from the Redis script: " + reply);
            }
        }
        return Decisions.combine(limits, transitions);
    }
}
