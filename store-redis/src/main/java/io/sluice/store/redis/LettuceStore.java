package io.sluice.store.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.Decisions;
import io.sluice.algorithms.LeaseArguments;
import io.sluice.algorithms.calls.Deadlines;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
    /** Decisions without limits that build() sends: each reads one key and writes nothing. */
    private static final int WARM_UP_CALLS = 10;
    private static final String WARM_UP_IDENTITY = "sluice-warm-up";
    private static final byte[] REDIS_CLOCK = "redis".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] SMALL_DECIMALS = new byte[16][];

    static {
        for (int i = 0; i < SMALL_DECIMALS.length; i++) {
            SMALL_DECIMALS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** An admitted transition's state stays in Redis; the Java side never sees it. */
    private static final long[] STATE_IN_REDIS = new long[0];

    /** The commands of one open connection, and how to close it (and the client the store owns). */
    record Connection(RedisClusterAsyncCommands<String, String> commands, Runnable closer) {
    }

    /** A {@code SCRIPT LOAD} and when it was sent (System.nanoTime). */
    private record ScriptLoad(long startedAt, CompletableFuture<String> done) {
    }

    private final RedisClusterAsyncCommands<String, String> commands;
    private final Runnable closer;
    private final Duration commandTimeout;
    private final long timeoutNanos;
    private final Deadlines deadlines;
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
    LettuceStore(RedisClusterAsyncCommands<String, String> commands, Runnable closer,
                 Duration commandTimeout, @Nullable TimeSource clockForTesting, @Nullable Heartbeat heartbeat) {
        this.commands = commands;
        this.closer = closer;
        this.commandTimeout = commandTimeout;
        this.timeoutNanos = commandTimeout.toNanos();
        this.deadlines = new Deadlines("sluice-redis-timeouts-", commandTimeout);
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
        return run(LuaScript.DECIDE, decideArguments(key, limits, cost), reply -> decision(limits, reply, 0));
    }

    /**
     * {@code EVALSHA}'s arguments for decide.lua: its SHA-1; the client's key, each limit's key
     * in schema 1 and each sliding log's list; the clock, the cost and the limits' arguments.
     */
    private CommandArgs<String, String> decideArguments(String key, List<Limit> limits, long cost) {
        LimitArguments limitArguments = limitArguments(limits);
        String clientKey = RedisKeys.key(key);
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(LuaScript.DECIDE.encodedSha1())
                .add(decimal(1 + limits.size() + limitArguments.logs())).addKey(clientKey);
        for (Limit limit : limits) {
            args.addKey(RedisKeys.version1Key(clientKey, limit.name()));
        }
        if (limitArguments.logs() > 0) {
            for (Limit limit : limits) {
                if (limit.algorithm() == Algorithms.SLIDING_LOG) {
                    args.addKey(RedisKeys.logKey(clientKey, limit.name()));
                }
            }
        }
        return args.add(clock()).add(decimal(cost)).addAll(limitArguments.arguments());
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
        int logs = 0;
        for (Limit limit : limits) {
            if (limit.algorithm() == Algorithms.SLIDING_LOG) {
                logs++;
            }
        }
        LimitArguments computed = new LimitArguments(limits.toArray(new Limit[0]), encoded(limits), logs);
        lastLimitArguments = computed;
        return computed;
    }

    /**
     * Per limit: name, algorithm id, permits, burst and period, encoded once. Lettuce's
     * arguments are immutable, so one set serves every call that adds it.
     */
    private static CommandArgs<String, String> encoded(List<Limit> limits) {
        CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8);
        for (Limit limit : limits) {
            arguments.addValue(limit.name()).add(decimal(algorithmId(limit))).add(decimal(limit.permits()))
                    .add(decimal(limit.burst())).add(decimal(limit.periodMicros()));
        }
        return arguments;
    }

    /** The script arguments of some limits, and how many of them are sliding logs. */
    private record LimitArguments(Limit[] limits, CommandArgs<String, String> arguments, int logs) {

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
        String clientKey = RedisKeys.key(key);
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(LuaScript.LEASE.encodedSha1())
                .add(decimal(1 + limits.size())).addKey(clientKey);
        for (Limit limit : limits) {
            args.addKey(RedisKeys.version1Key(clientKey, limit.name()));
        }
        args.add(clock()).add(decimal(maxTokens)).addAll(encoded(limits));
        return run(LuaScript.LEASE, args, reply -> lease(limits, reply));
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
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(LuaScript.GIVE_BACK.encodedSha1())
                .add(decimal(1)).addKey(RedisKeys.key(key))
                .add(clock()).add(decimal(unusedTokens)).add(decimal(lease.takenAtMicros())).addAll(encoded(limits));
        return run(LuaScript.GIVE_BACK, args, written -> null);
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
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                evalsha(decideArguments(WARM_UP_IDENTITY, List.of(), 1))
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
    private <R> CompletableFuture<R> run(LuaScript script, CommandArgs<String, String> args,
                                         Function<long[], R> onReply) {
        Call<R> call = new Call<>(script, args, onReply, System.nanoTime());
        call.send();
        deadlines.add(call);
        return call;
    }

    /**
     * One script call and its result: completed once, by the reply (through {@code onReply}),
     * by a failure or by its deadline, whichever comes first; one future per decision.
     */
    private final class Call<R> extends CompletableFuture<R>
            implements BiConsumer<long[], Throwable>, Deadlines.Expirable {

        private final LuaScript script;
        /** {@code EVALSHA}'s arguments: the script's SHA-1, the keys and the script's arguments. */
        private final CommandArgs<String, String> args;
        private final Function<long[], R> onReply;
        private final long sentAt;
        /** The command last sent: the one to cancel when the deadline passes. */
        private volatile @Nullable RedisFuture<long[]> command;
        private boolean retried;

        Call(LuaScript script, CommandArgs<String, String> args, Function<long[], R> onReply, long sentAt) {
            this.script = script;
            this.args = args;
            this.onReply = onReply;
            this.sentAt = sentAt;
        }

        void send() {
            RedisFuture<long[]> sent = evalsha(args);
            command = sent;
            if (isDone()) {
                sent.cancel(false);
            }
            sent.whenComplete(this);
        }

        @Override
        public void accept(long[] reply, @Nullable Throwable error) {
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
            // The deadlines' timeout is the command timeout too.
            return sentAt + timeoutNanos;
        }

        @Override
        public void expire() {
            if (completeExceptionally(new StoreUnavailableException("Redis did not answer within "
                    + commandTimeout.toMillis() + " ms", new TimeoutException()))) {
                RedisFuture<long[]> sent = command;
                if (sent != null) {
                    sent.cancel(false);
                }
            }
        }
    }

    /** Sends one {@code EVALSHA}, its reply parsed into a {@code long[]}. */
    private RedisFuture<long[]> evalsha(CommandArgs<String, String> args) {
        return commands.dispatch(CommandType.EVALSHA, new IntegerArrayOutput(), args);
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
            // Bounded: the store's own client has no command timeout of its own.
            load = new ScriptLoad(startedAt, commands.scriptLoad(script.body()).toCompletableFuture()
                    .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS));
            loads.put(script, load);
        }
        return load.done();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** The clock argument: {@code redis} (Redis {@code TIME}), or {@code test:<micros>} of the test-only clock. */
    private byte[] clock() {
        return clockForTesting == null ? REDIS_CLOCK
                : ("test:" + clockForTesting.nowMicros()).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A number as the script reads it, in decimal: encoded here because Lettuce encodes a
     * number argument through a new string and its bytes on every send. The small numbers of
     * every call (key counts, a cost of 1) are shared.
     */
    private static byte[] decimal(long number) {
        if (number >= 0 && number < SMALL_DECIMALS.length) {
            return SMALL_DECIMALS[(int) number];
        }
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
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
    private static Lease lease(List<Limit> limits, long[] reply) {
        if (reply.length < 2) {
            throw new StoreUnavailableException("unexpected reply from the Redis lease script: "
                    + Arrays.toString(reply));
        }
        return new Lease(reply[0], reply[1], decision(limits, reply, 2));
    }

    /** The decision of the reply's fields from {@code offset} on: four per limit. */
    private static Decision decision(List<Limit> limits, long[] reply, int offset) {
        if (reply.length - offset != REPLY_FIELDS * limits.size()) {
            throw new StoreUnavailableException("unexpected reply from the Redis script: " + Arrays.toString(reply));
        }
        List<Transition> transitions = new ArrayList<>(limits.size());
        for (int i = 0; i < limits.size(); i++) {
            int f = offset + REPLY_FIELDS * i;
            long outcome = reply[f];
            long remaining = reply[f + 1];
            long resetAfter = reply[f + 2];
            long retryAfter = reply[f + 3];
            if (outcome == ALLOWED) {
                transitions.add(Transition.allowed(remaining, resetAfter, STATE_IN_REDIS));
            } else if (outcome == DENIED) {
                transitions.add(Transition.denied(remaining, resetAfter, retryAfter, null));
            } else if (outcome == COST_EXCEEDS_CAPACITY) {
                transitions.add(Transition.costExceedsCapacity(remaining, resetAfter, null));
            } else {
                throw new StoreUnavailableException("unexpected outcome from the Redis script: " + Arrays.toString(reply));
            }
        }
        return Decisions.combine(limits, transitions);
    }
}
