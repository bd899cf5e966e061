package io.sluice.store.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
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
import java.lang.System.Logger.Level;
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
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Redis store: one {@code FCALL} of the decision function of {@link LuaLibrary#SLUICE} per
 * decision when every master runs Redis 7 or later, else one {@code EVALSHA} of
 * {@link LuaScript#DECIDE}, over one Lettuce connection (standalone or cluster), with Redis
 * {@code TIME} as the clock.
 */
final class LettuceStore implements Store, InstanceCount {

    /** Says once, when a store is built, why it runs scripts where Redis Functions were possible. */
    private static final System.Logger LOGGER = System.getLogger(RedisStore.class.getName());
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

    /**
     * The commands of one open connection, the commands of each master (the one server, or
     * every master of a cluster that serves slots, on the current topology), and how to close
     * the connection (and the client the store owns).
     */
    record Connection(RedisClusterAsyncCommands<String, String> commands,
                      Supplier<CompletableFuture<List<RedisClusterAsyncCommands<String, String>>>> masters,
                      Runnable closer) {
    }

    /** The commands of Redis Functions, which Lettuce 6.2 does not know. */
    private enum FunctionCommand implements ProtocolKeyword {
        FCALL, FUNCTION;

        private final byte[] bytes = name().getBytes(StandardCharsets.US_ASCII);

        @Override
        public byte[] getBytes() {
            return bytes;
        }
    }

    /** The error of an {@code FCALL} of a function Redis does not have (flushed, or a new node). */
    private static final String FUNCTION_NOT_FOUND = "ERR Function not found";

    /** A {@code SCRIPT LOAD} and when it was sent (System.nanoTime). */
    private record ScriptLoad(long startedAt, CompletableFuture<String> done) {
    }

    private final RedisClusterAsyncCommands<String, String> commands;
    private final Supplier<CompletableFuture<List<RedisClusterAsyncCommands<String, String>>>> masters;
    /** {@code FCALL} of {@link LuaLibrary#SLUICE} when true, else {@code EVALSHA}: chosen once, by {@link #loadFunctions}. */
    private final boolean functions;
    /** Whether decisions and leases read a limit's state in key schema 1 when the client's key has none. */
    private final boolean readKeySchema1;
    private final Runnable closer;
    private final Duration commandTimeout;
    private final long timeoutNanos;
    private final Deadlines deadlines;
    private volatile @Nullable LimitArguments lastLimitArguments;
    private final @Nullable TimeSource clockForTesting;
    /** Announces this store to the others on the same Redis; {@code null} when counting instances is off. */
    private final @Nullable Heartbeat heartbeat;
    /** The latest load of each script, or of the library; guarded by this. */
    private final Map<Object, ScriptLoad> loads = new HashMap<>();

    /**
     * @param functions whether to call the library's functions ({@link #loadFunctions} loaded it) or run scripts
     * @param readKeySchema1 whether to read the state of key schema 1 of a limit that the client's key lacks
     * @param clockForTesting the test-only clock override, or {@code null} for Redis {@code TIME}
     * @param heartbeat this store's announcement to the others, or {@code null} when it does not count instances
     */
    LettuceStore(Connection connection, boolean functions, boolean readKeySchema1, Duration commandTimeout,
                 @Nullable TimeSource clockForTesting, @Nullable Heartbeat heartbeat) {
        this.readKeySchema1 = readKeySchema1;
        this.commands = connection.commands();
        this.masters = connection.masters();
        this.closer = connection.closer();
        this.functions = functions;
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

    /** Every wait for Redis, {@link #tryAcquireAndWait}'s included, ends within the command timeout. */
    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, true, true, true, false, commandTimeout);
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
     * The decision of {@link #tryAcquire}, waited for on the caller's thread: the command's own
     * future, which Lettuce's thread completes with the parsed reply, waited for with the
     * command timeout, as Lettuce's synchronous API waits. Why not {@code tryAcquire}'s stage:
     * that adds a future of the store's and one of the guard's, each watched by a
     * {@link Deadlines} queue, and runs the decision's construction and the guard's handler on
     * Lettuce's one thread, which every decision's reply passes through.
     *
     * @throws StoreUnavailableException when Redis fails, does not answer within the command
     *     timeout (the command is then cancelled) or the caller is interrupted
     */
    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        long sentAt = System.nanoTime();
        return decision(limits, await(LuaScript.DECIDE, decideArguments(key, limits, cost), sentAt), 0);
    }

    /**
     * {@code FCALL}'s or {@code EVALSHA}'s arguments for decide.lua: the function's name or the
     * script's SHA-1; the client's key, each limit's key in schema 1 (when it is read) and each
     * sliding log's list; the clock, the cost and the limits' arguments.
     */
    private CommandArgs<String, String> decideArguments(String key, List<Limit> limits, long cost) {
        LimitArguments limitArguments = limitArguments(limits);
        String clientKey = RedisKeys.key(key);
        int version1Keys = readKeySchema1 ? limits.size() : 0;
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(called(LuaScript.DECIDE))
                .add(decimal(1 + version1Keys + limitArguments.logs())).addKey(clientKey);
        addVersion1Keys(args, clientKey, limits);
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
     * The script arguments of these limits, the same for a decision, a lease and a give-back
     * ({@link #packed}). A limiter passes the same limits on every call, so the last limits'
     * are kept (limits are immutable: the same objects in the same order have the same arguments).
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
        LimitArguments computed = new LimitArguments(limits.toArray(new Limit[0]), packed(limits, readKeySchema1), logs);
        lastLimitArguments = computed;
        return computed;
    }

    /**
     * The arguments of these limits that decide.lua, lease.lua and give-back.lua take, encoded
     * once: one MessagePack array of 1 when schema 1 is read (else 0) and the algorithm id,
     * permits, burst and period of each limit, then each limit's name. Lettuce's arguments are
     * immutable, so one set serves every call that adds it.
     */
    private static CommandArgs<String, String> packed(List<Limit> limits, boolean readKeySchema1) {
        long[] numbers = new long[1 + 4 * limits.size()];
        numbers[0] = readKeySchema1 ? 1 : 0;
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            numbers[1 + 4 * i] = algorithmId(limit);
            numbers[2 + 4 * i] = limit.permits();
            numbers[3 + 4 * i] = limit.burst();
            numbers[4 + 4 * i] = limit.periodMicros();
        }
        CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8).add(MessagePack.array(numbers));
        for (Limit limit : limits) {
            arguments.addValue(limit.name());
        }
        return arguments;
    }

    /** The scripts' arguments of some limits, and how many of them are sliding logs. */
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
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(called(LuaScript.LEASE))
                .add(decimal(1 + (readKeySchema1 ? limits.size() : 0))).addKey(clientKey);
        addVersion1Keys(args, clientKey, limits);
        args.add(clock()).add(decimal(maxTokens)).addAll(limitArguments(limits).arguments());
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
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add(called(LuaScript.GIVE_BACK))
                .add(decimal(1)).addKey(RedisKeys.key(key))
                .add(clock()).add(decimal(unusedTokens)).add(decimal(lease.takenAtMicros()))
                .addAll(limitArguments(limits).arguments());
        return run(LuaScript.GIVE_BACK, args, written -> null);
    }

    /** Each limit's key in schema 1, when the store reads it. */
    private void addVersion1Keys(CommandArgs<String, String> args, String clientKey, List<Limit> limits) {
        if (readKeySchema1) {
            for (Limit limit : limits) {
                args.addKey(RedisKeys.version1Key(clientKey, limit.name()));
            }
        }
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
     * Whether the store can call Redis Functions, and if so loads {@link LuaLibrary#SLUICE}
     * ({@code FUNCTION LOAD REPLACE}) on every master: when every master runs Redis 7 or later
     * ({@code redis_version} of {@code INFO server}) and the user may load functions. A
     * {@code NOPERM} answer to the load (an ACL without {@code FUNCTION}) leaves the store on
     * scripts; so does one master older than 7 in a cluster.
     *
     * @throws StoreUnavailableException when Redis does not answer within {@code bound}
     */
    static boolean loadFunctions(Supplier<CompletableFuture<List<RedisClusterAsyncCommands<String, String>>>> masters,
                                 Duration bound) {
        try {
            List<RedisClusterAsyncCommands<String, String>> all = masters.get().get(bound.toNanos(), TimeUnit.NANOSECONDS);
            List<CompletableFuture<String>> infos = new ArrayList<>();
            for (RedisClusterAsyncCommands<String, String> master : all) {
                infos.add(master.info("server").toCompletableFuture());
            }
            for (CompletableFuture<String> info : infos) {
                if (majorVersion(info.get(bound.toNanos(), TimeUnit.NANOSECONDS)) < 7) {
                    LOGGER.log(Level.INFO, "a Redis master runs a version before 7: decisions are EVALSHA of a "
                            + "script, not FCALL of Redis Functions");
                    return false;
                }
            }
            loadLibrary(all).get(bound.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while loading the Redis functions", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : unwrap(e.getCause());
            if (cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).startsWith("NOPERM")) {
                LOGGER.log(Level.INFO, "the Redis user may not load functions (" + cause.getMessage()
                        + "): decisions are EVALSHA of a script, not FCALL of Redis Functions, which cost "
                        + "Redis more per decision; allow FUNCTION to the user to use them");
                return false;
            }
            throw new StoreUnavailableException("Redis did not load the functions: " + cause, cause);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException("Redis did not answer INFO and FUNCTION LOAD within "
                    + bound.toMillis() + " ms", e);
        }
    }

    /** The major version of {@code redis_version} in the text of {@code INFO server}, or 0 when it has none. */
    static int majorVersion(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length()).trim();
                int dot = version.indexOf('.');
                try {
                    return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** {@code FUNCTION LOAD REPLACE} of the library on each of these masters: its name once all answered. */
    private static CompletableFuture<String> loadLibrary(List<RedisClusterAsyncCommands<String, String>> masters) {
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (RedisClusterAsyncCommands<String, String> master : masters) {
            loads.add(master.dispatch(FunctionCommand.FUNCTION, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("LOAD").add("REPLACE").add(LuaLibrary.SLUICE.code()))
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(loads.toArray(new CompletableFuture<?>[0]))
                .thenApply(loaded -> LuaLibrary.SLUICE.name());
    }

    /**
     * Loads the scripts (on every node of a cluster) unless the store calls functions, which
     * {@link #loadFunctions} loaded, and runs the decision a few times without limits, when it
     * only reads one key: the connection, Redis's script cache and the code of the decision path
     * are ready before the first decision.
     *
     * @throws StoreUnavailableException when that does not succeed within {@code bound}
     */
    void warmUp(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        try {
            if (!functions) {
                for (LuaScript script : List.of(LuaScript.DECIDE, LuaScript.LEASE, LuaScript.GIVE_BACK)) {
                    commands.scriptLoad(script.body()).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
            }
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                call(decideArguments(WARM_UP_IDENTITY, List.of(), 1))
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
     * Runs a script: {@code FCALL} of its function or {@code EVALSHA}, and only when a node
     * answers that it has no such function or {@code NOSCRIPT} (restarted, failed over, flushed,
     * a node added) {@code FUNCTION LOAD} (on every master) or {@code SCRIPT LOAD} (on every
     * node of a cluster) and the call once more. Nothing else is retried: a command that failed
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
        /** {@code FCALL}'s or {@code EVALSHA}'s arguments: the function or the SHA-1, the keys and the arguments. */
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
            RedisFuture<long[]> sent = call(args);
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
            if (!retried && (cause instanceof RedisNoScriptException || functionNotFound(cause))) {
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

    /**
     * {@link #run}'s call on the caller's thread: the reply of the command, sent now, waited
     * for until the command timeout from {@code sentAt}; a missing function or script loaded
     * and the command sent once more, within the same timeout.
     */
    private long[] await(LuaScript script, CommandArgs<String, String> args, long sentAt) {
        for (boolean retried = false; ; retried = true) {
            RedisFuture<long[]> sent = call(args);
            Throwable cause;
            try {
                return sent.get(timeoutNanos - (System.nanoTime() - sentAt), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                cause = unwrap(e.getCause() == null ? e : e.getCause());
            } catch (TimeoutException e) {
                throw timedOut(sent, e);
            } catch (InterruptedException e) {
                throw interrupted(sent, e);
            }
            if (retried || !(cause instanceof RedisNoScriptException || functionNotFound(cause))) {
                throw new StoreUnavailableException("Redis failed: " + cause, cause);
            }
            try {
                loaded(script, sentAt).get(timeoutNanos - (System.nanoTime() - sentAt), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                // Sent again even when the load failed, as Call does: in a cluster it fails when
                // any node is down, yet may have reached the node that answered.
            } catch (TimeoutException e) {
                throw timedOut(null, e);
            } catch (InterruptedException e) {
                throw interrupted(null, e);
            }
        }
    }

    /** The failure of a call whose timeout passed; the command, if one is out, is cancelled so that it is never sent later. */
    private StoreUnavailableException timedOut(@Nullable RedisFuture<long[]> sent, TimeoutException e) {
        if (sent != null) {
            sent.cancel(false);
        }
        return new StoreUnavailableException("Redis did not answer within " + commandTimeout.toMillis() + " ms", e);
    }

    /** The failure of a caller interrupted while waiting; its interrupt is kept. */
    private static StoreUnavailableException interrupted(@Nullable RedisFuture<long[]> sent, InterruptedException e) {
        if (sent != null) {
            sent.cancel(false);
        }
        Thread.currentThread().interrupt();
        return new StoreUnavailableException("interrupted while waiting for Redis", e);
    }

    /** Sends one {@code FCALL} or {@code EVALSHA}, its reply parsed into a {@code long[]}. */
    private RedisFuture<long[]> call(CommandArgs<String, String> args) {
        return commands.dispatch(functions ? FunctionCommand.FCALL : CommandType.EVALSHA, new IntegerArrayOutput(), args);
    }

    /** What {@code FCALL} or {@code EVALSHA} names: the script's function, or the script's SHA-1. */
    private byte[] called(LuaScript script) {
        return functions ? script.encodedFunction() : script.encodedSha1();
    }

    private static boolean functionNotFound(Throwable error) {
        return error instanceof RedisCommandExecutionException
                && String.valueOf(error.getMessage()).startsWith(FUNCTION_NOT_FOUND);
    }

    /**
     * A {@code SCRIPT LOAD} of the script, or a {@code FUNCTION LOAD} of the library on every
     * master, that started after a command sent at {@code sentAt} (System.nanoTime) was sent,
     * so that it runs after that command on its node: the one already under way when there is
     * one, else a new one. After a restart or a flush, the many decisions in flight that all get
     * {@code NOSCRIPT} or no function share one load.
     */
    private synchronized CompletableFuture<String> loaded(LuaScript script, long sentAt) {
        Object loaded = functions ? LuaLibrary.SLUICE : script;
        ScriptLoad load = loads.get(loaded);
        if (load == null || load.startedAt() - sentAt < 0) {
            long startedAt = System.nanoTime();
            CompletableFuture<String> done = functions
                    ? masters.get().thenCompose(LettuceStore::loadLibrary)
                    : commands.scriptLoad(script.body()).toCompletableFuture();
            // Bounded: the store's own client has no command timeout of its own.
            load = new ScriptLoad(startedAt, done.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS));
            loads.put(loaded, load);
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


    /** The lease lease.lua answered (packed as a decision): tokens, time, then the decision's fields per limit. */
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
        // An array of their number, not a list: no list's array and no copy of it per decision.
        Transition[] transitions = new Transition[limits.size()];
        for (int i = 0; i < transitions.length; i++) {
            int f = offset + REPLY_FIELDS * i;
            long outcome = reply[f];
            long remaining = reply[f + 1];
            long resetAfter = reply[f + 2];
            long retryAfter = reply[f + 3];
            if (outcome == ALLOWED) {
                transitions[i] = Transition.allowed(remaining, resetAfter, STATE_IN_REDIS);
            } else if (outcome == DENIED) {
                transitions[i] = Transition.denied(remaining, resetAfter, retryAfter, null);
            } else if (outcome == COST_EXCEEDS_CAPACITY) {
                transitions[i] = Transition.costExceedsCapacity(remaining, resetAfter, null);
            } else {
                throw new StoreUnavailableException("unexpected outcome from the Redis script: " + Arrays.toString(reply));
            }
        }
        return Decisions.combine(limits, transitions);
    }
}
