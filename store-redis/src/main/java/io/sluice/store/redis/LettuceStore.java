package io.sluice.store.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.Decisions;
import io.sluice.algorithms.LeaseArguments;
import io.sluice.api.Algorithm;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.Decision;
import io.sluice.api.InstanceCount;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The Redis store: one {@code EVALSHA} of {@link LuaScript#DECIDE} per decision, over one
 * Lettuce connection (standalone or cluster), with Redis {@code TIME} as the clock.
 */
final class LettuceStore implements Store, InstanceCount {

    /** Redis answers per limit: outcome, remaining, resetAfter, retryAfter. */
    private static final int REPLY_FIELDS = 4;
    private static final long DENIED = 0;
    private static final long ALLOWED = 1;
    private static final long COST_EXCEEDS_CAPACITY = 2;
    private static final int ARGS_PER_LIMIT = 5;
    /** Decisions without limits that build() sends: each reads one key and writes nothing. */
    private static final int WARM_UP_CALLS = 10;
    private static final String WARM_UP_IDENTITY = "sluice-warm-up";
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
    private final long timeoutNanos;
    private final Deadlines deadlines = new Deadlines("sluice-redis-timeouts");
    private volatile @Nullable LimitArguments lastLimitArguments;
    private final @Nullable TimeSource clockForTesting;
    /** Announces this store to the others on the same Redis; {@code null} when counting instances is off. */
    private final @Nullable Heartbeat heartbeat;
    /** The latest load of each script; guarded by this. */
    private final Map<LuaScript, ScriptLoad> loads = new HashMap<>();

    /**
     * @param closer closes the connection, and the client when the store created it
     * @param clockForTesting the test-only clock override, or {@code null} for Redis {@code TIME}
     * @param heartbeat this store's announcement to the others, or {@code null} when it does not count instances
     */
    LettuceStore(RedisScriptingAsyncCommands<String, String> commands, Runnable closer,
                 Duration commandTimeout, @Nullable TimeSource clockForTesting, @Nullable Heartbeat heartbeat) {
        this.commands = commands;
        this.closer = closer;
        this.commandTimeout = commandTimeout;
        this.timeoutNanos = commandTimeout.toNanos();
        this.clockForTesting = clockForTesting;
        this.heartbeat = heartbeat;
    }

    /** The live stores on this Redis at the last heartbeat, from memory; empty when not counting. */
    @Override
    public OptionalInt instances() {
        return heartbeat == null ? OptionalInt.empty() : heartbeat.instances();
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, true, true, true);
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return Algorithms.isBuiltIn(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        LimitArguments limitArguments = limitArguments(limits);
        String hashTag = RedisKeys.hashTag(key);
        String[] keys = new String[1 + limits.size() + limitArguments.logs()];
        keys[0] = RedisKeys.PREFIX + hashTag;
        int log = 1 + limits.size();
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            keys[1 + i] = RedisKeys.version1Key(hashTag, limit.name());
            if (limit.algorithm() == Algorithms.SLIDING_LOG) {
                keys[log++] = RedisKeys.logKey(hashTag, limit.name());
            }
        }
        String[] args = new String[2 + ARGS_PER_LIMIT * limits.size()];
        args[0] = clock();
        args[1] = Long.toString(cost);
        System.arraycopy(limitArguments.arguments(), 0, args, 2, limitArguments.arguments().length);
        return this.<List<Object>, Decision>run(LuaScript.DECIDE, ScriptOutputType.MULTI, keys, args,
                reply -> decision(limits, reply));
    }

    /**
     * The script arguments of these limits: name, algorithm id, permits, burst and period each.
     * A limiter passes the same limits on every call, so the last limits' are kept (limits are
     * immutable: the same objects in the same order have the same arguments).
     */
    private LimitArguments limitArguments(List<Limit> limits) {
        LimitArguments last = lastLimitArguments;
        if (last != null && last.isFor(limits)) {
            return last;
        }
        String[] arguments = new String[ARGS_PER_LIMIT * limits.size()];
        int logs = 0;
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            int a = ARGS_PER_LIMIT * i;
            arguments[a] = limit.name();
            arguments[a + 1] = Integer.toString(algorithmId(limit));
            arguments[a + 2] = Long.toString(limit.permits());
            arguments[a + 3] = Long.toString(limit.burst());
            arguments[a + 4] = Long.toString(limit.periodMicros());
            if (limit.algorithm() == Algorithms.SLIDING_LOG) {
                logs++;
            }
        }
        LimitArguments computed = new LimitArguments(limits.toArray(new Limit[0]), arguments, logs);
        lastLimitArguments = computed;
        return computed;
    }

    /** The script arguments of some limits, and how many of them are sliding logs. */
    private record LimitArguments(Limit[] limits, String[] arguments, int logs) {

        boolean isFor(List<Limit> others) {
            if (others.size() != limits.length) {
                return false;
            }
            for (int i = 0; i < limits.length; i++) {
                if (others.get(i) != limits[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        try {
            LeaseArguments.checkLease(limits, maxTokens);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String hashTag = RedisKeys.hashTag(key);
        String[] keys = new String[1 + limits.size()];
        keys[0] = RedisKeys.PREFIX + hashTag;
        for (int i = 0; i < limits.size(); i++) {
            keys[1 + i] = RedisKeys.version1Key(hashTag, limits.get(i).name());
        }
        String[] args = leasingArgs(limits, maxTokens);
        return this.<List<Object>, Lease>run(LuaScript.LEASE, ScriptOutputType.MULTI, keys, args,
                reply -> lease(limits, reply));
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        try {
            LeaseArguments.checkGiveBack(limits, lease, unusedTokens);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (unusedTokens == 0) {
            return CompletableFuture.completedFuture(null);
        }
        String[] keys = {RedisKeys.key(key)};
        String[] args = leasingArgs(limits, unusedTokens, lease.takenAtMicros());
        return this.<Long, Void>run(LuaScript.GIVE_BACK, ScriptOutputType.INTEGER, keys, args, written -> null);
    }

    /** The clock, the lease's or give-back's numbers, then per limit: name, algorithm id, permits, burst, period. */
    private String[] leasingArgs(List<Limit> limits, long... numbers) {
        int head = 1 + numbers.length;
        String[] args = new String[head + ARGS_PER_LIMIT * limits.size()];
        args[0] = clock();
        for (int i = 0; i < numbers.length; i++) {
            args[1 + i] = Long.toString(numbers[i]);
        }
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            int a = head + ARGS_PER_LIMIT * i;
            args[a] = limit.name();
            args[a + 1] = Integer.toString(algorithmId(limit));
            args[a + 2] = Long.toString(limit.permits());
            args[a + 3] = Long.toString(limit.burst());
            args[a + 4] = Long.toString(limit.periodMicros());
        }
        return args;
    }

    @Override
    public void close() {
        if (heartbeat != null) {
            heartbeat.close();
        }
        deadlines.close();
        closer.run();
    }

    /**
     * Loads the decision script (on every node of a cluster) and runs it a few times without
     * limits, when it only reads one key: the connection, the script cache and the code of
     * the decision path are ready before the first decision.
     *
     * @throws StoreUnavailableException when that does not succeed within {@code bound}
     */
    void warmUp(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        try {
            commands.scriptLoad(LuaScript.DECIDE.body()).get(bound.toNanos(), TimeUnit.NANOSECONDS);
            for (LuaScript leasing : List.of(LuaScript.LEASE, LuaScript.GIVE_BACK)) {
                commands.scriptLoad(leasing.body()).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            String[] keys = {RedisKeys.key(WARM_UP_IDENTITY)};
            String[] args = {clock(), "1"};
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                commands.evalsha(LuaScript.DECIDE.sha1(), ScriptOutputType.MULTI, keys, args)
                        .get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while loading the Redis scripts", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new StoreUnavailableException("Redis did not load and run the decision script within "
                    + bound.toMillis() + " ms: " + e, e);
        }
    }

    /**
     * Runs a script: {@code EVALSHA}, and only when a node answers {@code NOSCRIPT} (it never
     * ran the script: restarted, failed over, flushed) {@code SCRIPT LOAD} (on every node of a
     * cluster) and {@code EVALSHA} once more. Nothing else is retried: a command that failed
     * or timed out may have run, and running it again could charge a request twice. A
     * timed-out command is cancelled so that Lettuce never sends it after a reconnect.
     */
    private <T, R> CompletableFuture<R> run(LuaScript script, ScriptOutputType type, String[] keys,
                                            String[] args, Function<T, R> onReply) {
        Call<T, R> call = new Call<>(script, type, keys, args, onReply, System.nanoTime());
        call.send();
        deadlines.add(call);
        return call;
    }

    /**
     * One script call and its result: completed once, by the reply (through {@code onReply}),
     * by a failure or by its deadline, whichever comes first; one future per decision.
     */
    private final class Call<T, R> extends CompletableFuture<R>
            implements BiConsumer<T, Throwable>, Deadlines.Expirable {

        private final LuaScript script;
        private final ScriptOutputType type;
        private final String[] keys;
        private final String[] args;
        private final Function<T, R> onReply;
        private final long sentAt;
        /** The command last sent: the one to cancel when the deadline passes. */
        private volatile @Nullable RedisFuture<T> command;
        private boolean retried;

        Call(LuaScript script, ScriptOutputType type, String[] keys, String[] args, Function<T, R> onReply,
             long sentAt) {
            this.script = script;
            this.type = type;
            this.keys = keys;
            this.args = args;
            this.onReply = onReply;
            this.sentAt = sentAt;
        }

        void send() {
            RedisFuture<T> sent = commands.evalsha(script.sha1(), type, keys, args);
            command = sent;
            if (isDone()) {
                sent.cancel(false);
            }
            sent.whenComplete(this);
        }

        @Override
        public void accept(@Nullable T reply, @Nullable Throwable error) {
            if (isDone()) {
                return;
            }
            if (error == null) {
                try {
                    complete(onReply.apply(reply));
                } catch (RuntimeException e) {
                    completeExceptionally(e);
                }
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof RedisNoScriptException && !retried) {
                retried = true;
                // Retried even when the load failed: in a cluster it fails when any node is down,
                // yet may have reached the node that answered NOSCRIPT.
                loaded(script, sentAt).whenComplete((sha, loadError) -> {
                    if (!isDone()) {
                        send();
                    }
                });
                return;
            }
            completeExceptionally(new StoreUnavailableException("Redis failed: " + cause, cause));
        }

        @Override
        public long deadline() {
            return sentAt + timeoutNanos;
        }

        @Override
        public void expire() {
            if (completeExceptionally(new StoreUnavailableException("Redis did not answer within "
                    + commandTimeout.toMillis() + " ms", new TimeoutException()))) {
                RedisFuture<T> sent = command;
                if (sent != null) {
                    sent.cancel(false);
                }
            }
        }
    }

    /**
     * A {@code SCRIPT LOAD} of the script that started after a command sent at {@code sentAt}
     * (System.nanoTime) was sent, so that it runs after that command on its node: the one
     * already under way when there is one, else a new one. After a restart or a flush, the
     * many decisions in flight that all get {@code NOSCRIPT} share one load.
     */
    private synchronized CompletableFuture<String> loaded(LuaScript script, long sentAt) {
        ScriptLoad load = loads.get(script);
        if (load == null || load.startedAt() - sentAt < 0) {
            long startedAt = System.nanoTime();
            load = new ScriptLoad(startedAt, commands.scriptLoad(script.body()).toCompletableFuture());
            loads.put(script, load);
        }
        return load.done();
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


    /** The lease lease.lua answered: tokens, time, then the decision's fields per limit. */
    private static Lease lease(List<Limit> limits, List<Object> reply) {
        if (reply.size() < 2) {
            throw new StoreUnavailableException("unexpected reply from the Redis lease script: " + reply);
        }
        return new Lease((Long) reply.get(0), (Long) reply.get(1), decision(limits, reply.subList(2, reply.size())));
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
