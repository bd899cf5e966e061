package io.sluice.store.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Creates the Redis store: limits' state in Redis or Redis Cluster, decided by Lua next to the
 * data, one command per decision, with Redis {@code TIME} as the clock: {@code FCALL} of a
 * library of Redis Functions when every master runs Redis 7 or later, else {@code EVALSHA}.
 *
 * <pre>{@code
 * Store store = RedisStore.standalone(RedisURI.create("rediss://:secret@redis.internal:6379"))
 *         .commandTimeout(Duration.ofMillis(100))
 *         .build();
 * Store clustered = RedisStore.cluster(RedisURI.create("redis://node-1:6379"),
 *         RedisURI.create("redis://node-2:6379")).build();
 * RateLimiter limiter = RateLimiter.builder().limit(limit).store(store).build();
 * }</pre>
 *
 * <p>Authentication and TLS come from the {@link RedisURI} (or the client) as Lettuce
 * takes them. A store built from URIs creates and owns its client and closes it on
 * {@link Store#close()}; a store built from a client opens its own connection on it and
 * closes only that. {@code build()} connects, and fails when Redis cannot be reached.
 *
 * <p>A command that takes longer than the {@linkplain Builder#commandTimeout command timeout}
 * fails the decision with a {@link io.sluice.api.StoreUnavailableException} (the rate
 * limiter's failure policy applies), never a denial; it is never sent again, as a second
 * run could charge the request twice. For the same reason a client must not replay
 * commands after a reconnect: the store's own clients reject commands while disconnected,
 * and a given client must be configured so ({@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS}).
 *
 * <p>After an outage the store's own client tries to reconnect at most
 * {@link #MAX_RECONNECT_DELAY} apart (Lettuce's default backs off up to 30 s), so decisions
 * resume within about that long of the server's return, and gives up a connection attempt
 * after {@link #CONNECT_TIMEOUT}. A client passed in keeps its own settings: give it
 * {@code ClientResources.builder().reconnectDelay(...)} with a bound this short (see
 * docs/stores/redis.md).
 *
 * <p>The store counts the limiter instances that share the Redis ({@link io.sluice.api.InstanceCount},
 * the divisor of the fallback during an outage): it announces itself every
 * {@linkplain Builder#heartbeatInterval heartbeat interval} in a sorted set of its own and
 * remembers how many live stores Redis counted; each store built counts as one instance (build
 * one per process). See docs/stores/redis.md.
 *
 * <p>{@code build()} also loads the library (on every master) or the scripts (on every node of
 * a cluster) and sends a few read-only decisions, so that the first decisions of a fresh
 * process neither wait for a connection nor miss their timeout on class loading.
 */
public final class RedisStore {

    /**
     * The command timeout unless {@link Builder#commandTimeout} sets another: the store
     * guard's default too. Why 100 ms and not a few: measured on a loaded 2-core machine, a
     * 5 ms timeout failed 0.6-1.4% of decisions on a healthy server (a timed-out command may
     * still have run, and a fail-open rule then over-admits), 100 ms 1 in 2,000-6,000; a
     * failed server costs a decision at most this long, and only until the breaker opens
     * (docs/operations.md, "Timeout").
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(100);

    /** The longest wait between two reconnection attempts of the store's own client. */
    public static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);

    /** How long the store's own client waits for a connection to open. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

    /**
     * The store's own client leaves command timeouts to the store, which ends every call at
     * its deadline on one thread: Lettuce's would schedule a timer task and a callback per
     * decision as well.
     */
    private static final TimeoutOptions OWN_DEADLINES = TimeoutOptions.builder().timeoutCommands(false).build();

    private RedisStore() {
    }

    /** A store on one Redis server (or a proxy in front of several), with its own client. */
    public static Builder standalone(RedisURI uri) {
        Objects.requireNonNull(uri, "uri");
        return new Builder(() -> {
            ClientResources resources = ownResources();
            RedisClient client = RedisClient.create(resources, uri);
            client.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
                    .timeoutOptions(OWN_DEADLINES)
                    .build());
            return open(client, resources);
        });
    }

    /**
     * A store on a connection of its own from {@code client}, which must have been created
     * with a {@link RedisURI}.
     *
     * @throws IllegalArgumentException when the client would send commands again after a reconnect
     */
    public static Builder standalone(RedisClient client) {
        Objects.requireNonNull(client, "client");
        checkNoReplay(client.getOptions());
        return new Builder(() -> open(client, null));
    }

    /** A store on a Redis Cluster found from these seed nodes, with its own client. */
    public static Builder cluster(RedisURI... seeds) {
        return cluster(List.of(seeds));
    }

    /** A store on a Redis Cluster found from these seed nodes, with its own client. */
    public static Builder cluster(Iterable<RedisURI> seeds) {
        List<RedisURI> nodes = new ArrayList<>();
        seeds.forEach(seed -> nodes.add(Objects.requireNonNull(seed, "seed")));
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Redis Cluster store needs at least one seed node: " + nodes);
        }
        return new Builder(() -> {
            ClientResources resources = ownResources();
            RedisClusterClient client = RedisClusterClient.create(resources, nodes);
            client.setOptions(ClusterClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
                    .timeoutOptions(OWN_DEADLINES)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers().build())
                    .build());
            return open(client, resources);
        });
    }

    /**
     * A store on a connection of its own from a Redis Cluster client.
     *
     * @throws IllegalArgumentException when the client would send commands again after a reconnect
     */
    public static Builder cluster(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        checkNoReplay(client.getOptions());
        return new Builder(() -> open(client, null));
    }

    /**
     * The resources of a client the store owns: reconnection attempts at most
     * {@link #MAX_RECONNECT_DELAY} apart, jittered so that a fleet does not reconnect at once.
     */
    private static ClientResources ownResources() {
        return DefaultClientResources.builder()
                .reconnectDelay(Delay.fullJitter(Duration.ofMillis(1), MAX_RECONNECT_DELAY, 1, TimeUnit.MILLISECONDS))
                .build();
    }

    private static void checkNoReplay(ClientOptions options) {
        if (options.isAutoReconnect()
                && options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
            throw new IllegalArgumentException("a client that reconnects must reject commands while "
                    + "disconnected, or a decision could be sent twice and charge a request twice: "
                    + "disconnectedBehavior is " + options.getDisconnectedBehavior()
                    + ", expected REJECT_COMMANDS");
        }
    }

    /** @param ownResources the resources of a client the store created and owns, else {@code null} */
    private static LettuceStore.Connection open(RedisClient client, @Nullable ClientResources ownResources) {
        StatefulRedisConnection<String, String> connection = connect(client, ownResources,
                () -> client.connect(StringCodec.UTF8));
        List<RedisClusterAsyncCommands<String, String>> master = List.of(connection.async());
        return new LettuceStore.Connection(connection.async(), () -> CompletableFuture.completedFuture(master),
                () -> close(connection, client, ownResources));
    }

    private static LettuceStore.Connection open(RedisClusterClient client, @Nullable ClientResources ownResources) {
        StatefulRedisClusterConnection<String, String> connection = connect(client, ownResources, () -> {
            StatefulRedisClusterConnection<String, String> cluster = client.connect(StringCodec.UTF8);
            // Node connections open lazily, and while one is opening a client that rejects
            // commands when disconnected rejects them: open them now, to every master.
            for (RedisClusterNode node : cluster.getPartitions()) {
                if (!node.getSlots().isEmpty()) {
                    cluster.getConnection(node.getUri().getHost(), node.getUri().getPort());
                }
            }
            return cluster;
        });
        return new LettuceStore.Connection(connection.async(), () -> masters(connection),
                () -> close(connection, client, ownResources));
    }

    /**
     * The commands of every master of the cluster's current topology that serves slots, once
     * their connections are open (asynchronously: a reload after a failover runs on Lettuce's
     * threads, which must not wait for a connection).
     */
    private static CompletableFuture<List<RedisClusterAsyncCommands<String, String>>> masters(
            StatefulRedisClusterConnection<String, String> cluster) {
        List<CompletableFuture<RedisClusterAsyncCommands<String, String>>> masters = new ArrayList<>();
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (!node.getSlots().isEmpty()) {
                masters.add(cluster.getConnectionAsync(node.getNodeId()).thenApply(StatefulRedisConnection::async));
            }
        }
        return CompletableFuture.allOf(masters.toArray(new CompletableFuture<?>[0]))
                .thenApply(opened -> masters.stream().map(CompletableFuture::join).toList());
    }

    private static <C> C connect(AbstractRedisClient client, @Nullable ClientResources ownResources,
                                 Supplier<C> connect) {
        try {
            return connect.get();
        } catch (RuntimeException e) {
            shutdownOwned(client, ownResources);
            throw e;
        }
    }

    private static void close(AutoCloseable connection, AbstractRedisClient client,
                              @Nullable ClientResources ownResources) {
        try {
            connection.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot close the Redis connection", e);
        } finally {
            shutdownOwned(client, ownResources);
        }
    }

    /** Shuts the client and its resources down when the store created them. */
    private static void shutdownOwned(AbstractRedisClient client, @Nullable ClientResources ownResources) {
        if (ownResources != null) {
            client.shutdown();
            ownResources.shutdown();
        }
    }

    /** Settings of a Redis store. Not thread-safe; the store it builds is. */
    public static final class Builder {

        private final Supplier<LettuceStore.Connection> connector;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private @Nullable TimeSource clockForTesting;
        private boolean countInstances = true;
        private Duration heartbeatInterval = Heartbeat.DEFAULT_INTERVAL;
        private boolean readKeySchema1;

        private Builder(Supplier<LettuceStore.Connection> connector) {
            this.connector = connector;
        }

        /**
         * How long a decision may wait for Redis ({@link #DEFAULT_COMMAND_TIMEOUT} unless set);
         * after it, the decision fails as the store being unavailable.
         *
         * @throws IllegalArgumentException when the timeout is not positive
         */
        public Builder commandTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("command timeout must be positive: " + timeout);
            }
            this.commandTimeout = timeout;
            return this;
        }

        /**
         * Whether this store announces itself to the others on the same Redis and counts them
         * (on by default): the number of instances the fallback divides each limit by when the
         * guard is given none. Off, the store neither writes the set nor answers a count.
         */
        public Builder countInstances(boolean countInstances) {
            this.countInstances = countInstances;
            return this;
        }

        /**
         * How often this store announces itself ({@link Heartbeat#DEFAULT_INTERVAL} unless set);
         * a store that stops is no longer counted {@value Heartbeat#BEATS_TO_EXPIRY} intervals
         * after its last beat, one that is closed at once.
         *
         * @throws IllegalArgumentException when the interval is not positive
         */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = Heartbeat.checkInterval(interval);
            return this;
        }

        /**
         * Whether a decision or a lease reads a limit's state from key schema 1 (one key per limit,
         * written by versions before key schema 2) when the client's key holds none of it; off
         * unless set. Turn it on for a rolling upgrade from such a version, so that no client
         * is admitted anew by the upgrade, and off again once the old version's keys have
         * expired (their longest limit's period after the last old instance stopped): each
         * limit of a client without state of its own costs Redis a {@code GET} more.
         */
        public Builder readKeySchema1(boolean readKeySchema1) {
            this.readKeySchema1 = readKeySchema1;
            return this;
        }

        /**
         * Test-only: decide with this clock instead of Redis {@code TIME}, so that tests are
         * deterministic. Never set it from configuration: gateways' clocks drift apart, Redis
         * {@code TIME} does not.
         */
        public Builder clockForTesting(TimeSource clock) {
            this.clockForTesting = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Connects, loads the library or the scripts (on every node of a cluster), warms the decision path up
         * and returns the store.
         *
         * @throws io.lettuce.core.RedisConnectionException when Redis cannot be reached
         * @throws io.sluice.api.StoreUnavailableException when Redis does not load the library or the scripts
         *     within {@link #CONNECT_TIMEOUT} plus the command timeout
         */
        public Store build() {
            LettuceStore.Connection connection = connector.get();
            boolean functions;
            try {
                functions = LettuceStore.loadFunctions(connection.masters(), CONNECT_TIMEOUT.plus(commandTimeout));
            } catch (RuntimeException e) {
                connection.closer().run();
                throw e;
            }
            Heartbeat heartbeat = countInstances
                    ? RedisHeartbeat.start(connection.commands(), heartbeatInterval, clockForTesting) : null;
            LettuceStore store = new LettuceStore(connection, functions, readKeySchema1, commandTimeout,
                    clockForTesting, heartbeat);
            try {
                store.warmUp(CONNECT_TIMEOUT.plus(commandTimeout));
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
            return store;
        }
    }
}
