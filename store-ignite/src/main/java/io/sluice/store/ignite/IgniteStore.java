package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridChecks;
import io.sluice.algorithms.grid.GridStore;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.IgniteException;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheMode;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.cluster.ClusterGroup;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * Creates {@link Store}s that keep limit state in an Apache Ignite cache.
 *
 * <p>Each decision is one {@code IgniteCache.invokeAsync} of an entry processor that runs
 * the reference algorithms of {@code sluice-algorithms} on the key's primary node, with that
 * node's clock; all limits of one key live in one entry, so a multi-limit check is one call.
 * Backups receive the computed state. Idle keys expire once all their limits are fully reset.
 *
 * <pre>{@code
 * Ignite ignite = Ignition.start(configuration);   // a server node, or a client of a cluster
 * Store store = IgniteStore.builder(ignite).backups(1).timeout(Duration.ofMillis(50)).build();
 * RateLimiter limiter = RateLimiter.builder().limit(limit).store(store).build();
 * }</pre>
 *
 * <p>The store counts the limiter instances that share the cache ({@link io.sluice.api.InstanceCount},
 * the divisor of the fallback during an outage): it announces itself every
 * {@linkplain Builder#heartbeatInterval heartbeat interval} in the cache
 * {@code <cache name>-instances}; each store built counts as one instance, on a server or a
 * client node, and a node that builds no store is not counted. See docs/stores/ignite.md.
 *
 * <p>Every server node of the cluster needs {@code sluice-store-ignite}, {@code sluice-algorithms}
 * and {@code sluice-api} on its class path (the entry processor and the expiry policy run there).
 * Java 17 needs the {@code --add-opens} flags listed in {@code docs/stores/ignite.md}.
 */
public final class IgniteStore {

    /** The cache used when none is named. */
    public static final String DEFAULT_CACHE_NAME = "sluice";

    /** How long a decision may take when no timeout is set. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);

    /** How many decisions may be waiting for the cluster at once when no concurrency is set. */
    public static final int DEFAULT_CONCURRENCY = 64;

    /**
     * A system property of the JVM that builds a store (on a server or a client node):
     * {@code false} makes the store send its decisions without the chunks of long sliding logs,
     * which keeps each log whole in its key's entry, as versions before 2026-12-03 did, instead
     * of as a bounded head there and its older entries in the cache {@code <cache>.chunks}
     * (see docs/stores/ignite.md); the store then creates no such cache. Set it for the stores
     * of this version while server nodes of an earlier version, which refuse a request with
     * chunks, are in the cluster (a rolling upgrade), from before the first store of this
     * version is built: a log kept as a head cannot be decided without its chunks (a store
     * failure). Unset, or any other value: chunks are on. The Hazelcast store's switch is
     * {@code sluice.hazelcast.log-chunks}.
     */
    public static final String LOG_CHUNKS_PROPERTY = "sluice.ignite.log-chunks";

    /** How long {@link Builder#build()} waits for its warm-up decisions at most. */
    static final Duration WARM_UP_PATIENCE = Duration.ofSeconds(10);

    private static final System.Logger LOGGER = System.getLogger(IgniteStore.class.getName());

    /** How long a server may take to say whether it has the store's classes, when the cache is created. */
    private static final Duration CLASS_PATH_CHECK_TIMEOUT = Duration.ofSeconds(30);

    private IgniteStore() {
    }

    /**
     * Starts building a store on {@code ignite}, a server node (embedded) or a client node of an
     * existing cluster. The store does not own the node: closing the store leaves it running.
     */
    public static Builder builder(Ignite ignite) {
        return new Builder(Objects.requireNonNull(ignite, "ignite"));
    }

    /** Builds an Ignite-backed {@link Store}. Not thread-safe; the store it builds is. */
    public static final class Builder {

        private final Ignite ignite;
        private String cacheName = DEFAULT_CACHE_NAME;
        private int backups = 1;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int concurrency = DEFAULT_CONCURRENCY;
        private @Nullable TimeSource testClock;
        private boolean countInstances = true;
        private Duration heartbeatInterval = Heartbeat.DEFAULT_INTERVAL;

        private Builder(Ignite ignite) {
            this.ignite = ignite;
        }

        /**
         * The cache that holds the state; {@value #DEFAULT_CACHE_NAME} by default. It is created
         * (atomic, partitioned, full-sync, with the store's expiry policy) when missing; an existing
         * cache must have been created by this store.
         *
         * @throws IllegalArgumentException when the name is empty
         */
        public Builder cacheName(String cacheName) {
            this.cacheName = GridChecks.nonEmpty("cacheName", cacheName);
            return this;
        }

        /**
         * How many backup copies of each key the cache keeps when this store creates it; 1 by
         * default, so that the state survives the loss of one server node.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder backups(int backups) {
            if (backups < 0) {
                throw new IllegalArgumentException("backups must not be negative: " + backups);
            }
            this.backups = backups;
            return this;
        }

        /**
         * How long one decision may take before it fails as a store failure; {@link #DEFAULT_TIMEOUT}
         * by default. A timed-out request may still be charged when the cluster completes it later.
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder timeout(Duration timeout) {
            this.timeout = GridChecks.positive("timeout", timeout);
            return this;
        }

        /**
         * How many decisions may be waiting for the cluster at once; {@link #DEFAULT_CONCURRENCY}
         * by default. Each waits on a thread of the store (a blocking call that no node being
         * lost can make the caller wait for beyond the timeout); up to
         * {@value GridCalls#QUEUED_PER_THREAD} times as many more queue for a thread, and beyond
         * that a decision fails at once as a store failure.
         *
         * @throws IllegalArgumentException when below 1
         */
        public Builder concurrency(int concurrency) {
            this.concurrency = GridChecks.atLeast("concurrency", 1, concurrency);
            return this;
        }

        /**
         * Whether this store announces itself to the other stores of the cache and counts them
         * (on by default): the number of instances the fallback divides each limit by when the
         * guard is given none. Off, the store neither creates nor writes the registry and
         * answers no count.
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
         * Test-only: decides with this clock instead of the primary node's, so that tests are
         * deterministic. Its time is read by the caller and sent with each request. Never set it
         * from configuration.
         */
        public Builder clockForTesting(TimeSource clock) {
            this.testClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Builds the store, creating the cache when it does not exist yet, and warms it up so
         * that the first decisions do not pay for loading classes and connecting: runs the entry
         * processor once on every server that is a primary, with a request that writes nothing,
         * waiting up to 10 seconds. When that fails the store is returned all the same and the
         * failure is logged.
         *
         * @throws IllegalArgumentException when an existing cache of that name is not one this
         *     store can use (not atomic, not full-sync, or without the store's expiry policy)
         * @throws IllegalStateException when a server node lacks the classes of
         *     {@code sluice-store-ignite}, {@code sluice-algorithms} or {@code sluice-api} (the cache
         *     is then not created: Ignite would stop such a node on receiving its configuration)
         * @throws org.apache.ignite.IgniteException when the cluster cannot create the cache
         */
        public Store build() {
            IgniteCache<String, byte[]> cache = ignite.cache(cacheName);
            if (cache == null) {
                checkServersHaveTheStoresClasses();
                cache = ignite.getOrCreateCache(cacheConfiguration());
            }
            checkConfiguration(cache.getConfiguration(CacheConfiguration.class));
            Heartbeat heartbeat = countInstances
                    ? IgniteHeartbeat.start(ignite, cacheName, backups, heartbeatInterval, testClock) : null;
            GridCalls calls = new GridCalls("the Ignite cache '" + cacheName + "'", timeout, concurrency);
            CacheCalls primaries = new CacheCalls(cache, calls);
            ChunkCache chunks = sendsChunks()
                    ? new ChunkCache(ignite.getOrCreateCache(chunksConfiguration()), calls, testClock == null) : null;
            GridStore store = new GridStore("IgniteStore[cache " + cacheName + ", timeout " + timeout + "]",
                    calls, primaries, primaries, chunks, testClock, heartbeat);
            Throwable failure = store.warmUp(primaries.warmUpKeys(ignite), WARM_UP_PATIENCE);
            if (failure != null) {
                LOGGER.log(System.Logger.Level.WARNING, "the Ignite store on cache '" + cacheName
                        + "' could not warm up; its first decisions may fail until the cluster answers", failure);
            }
            return store;
        }

        /** Whether the store sends the chunks of long sliding logs ({@link #LOG_CHUNKS_PROPERTY}). */
        private static boolean sendsChunks() {
            return !"false".equals(System.getProperty(LOG_CHUNKS_PROPERTY));
        }

        /**
         * Ignite stops a server that receives a cache configuration naming a class it lacks, so
         * the store asks every server first and refuses to create the cache if one lacks them.
         */
        private void checkServersHaveTheStoresClasses() {
            List<String> lacking = new ArrayList<>();
            ClusterGroup servers = ignite.cluster().forServers();
            for (ClusterNode server : servers.nodes()) {
                String missing;
                try {
                    missing = ignite.compute(ignite.cluster().forNode(server))
                            .withTimeout(CLASS_PATH_CHECK_TIMEOUT.toMillis())
                            .call(new ClassPathCheck());
                } catch (IgniteException e) {
                    missing = "sluice-store-ignite (" + e.getMessage() + ")";
                }
                if (!missing.isEmpty()) {
                    lacking.add(server.consistentId() + ": " + missing);
                }
            }
            if (!lacking.isEmpty()) {
                throw new IllegalStateException("server nodes lack classes of sluice-store-ignite, "
                        + "sluice-algorithms or sluice-api on their class path, so the store does not create "
                        + "cache '" + cacheName + "': " + lacking);
            }
        }

        private CacheConfiguration<String, byte[]> cacheConfiguration() {
            return new CacheConfiguration<String, byte[]>(cacheName)
                    .setCacheMode(CacheMode.PARTITIONED)
                    // Atomic: the processor runs once, on the primary, and backups get its result.
                    .setAtomicityMode(CacheAtomicityMode.ATOMIC)
                    // Full sync: a decision is answered only once the backups hold the new state,
                    // so the loss of the primary cannot lose an admitted request's charge.
                    .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
                    .setBackups(backups)
                    .setExpiryPolicyFactory(StateExpiry.FACTORY)
                    .setEagerTtl(true)
                    .setStatisticsEnabled(false);
        }

        /**
         * The cache of the chunks of long sliding logs, {@code <cache>.chunks}: as the states' but
         * with no expiry policy of its own, since each chunk is written with its expiry.
         */
        private CacheConfiguration<ChunkKey, long[]> chunksConfiguration() {
            return new CacheConfiguration<ChunkKey, long[]>(cacheName + ".chunks")
                    .setCacheMode(CacheMode.PARTITIONED)
                    .setAtomicityMode(CacheAtomicityMode.ATOMIC)
                    // Full sync: a chunk is acknowledged to its head only once its backups hold it.
                    .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
                    .setBackups(backups)
                    .setEagerTtl(true)
                    .setStatisticsEnabled(false);
        }

        private void checkConfiguration(CacheConfiguration<?, ?> configuration) {
            if (configuration.getAtomicityMode() != CacheAtomicityMode.ATOMIC) {
                throw new IllegalArgumentException("cache '" + cacheName + "' must be ATOMIC, is "
                        + configuration.getAtomicityMode());
            }
            if (configuration.getWriteSynchronizationMode() != CacheWriteSynchronizationMode.FULL_SYNC) {
                throw new IllegalArgumentException("cache '" + cacheName + "' must be FULL_SYNC, is "
                        + configuration.getWriteSynchronizationMode());
            }
            if (!(configuration.getExpiryPolicyFactory() instanceof StateExpiry.Factory)) {
                throw new IllegalArgumentException("cache '" + cacheName
                        + "' must expire entries with the store's expiry policy, has "
                        + configuration.getExpiryPolicyFactory());
            }
        }
    }
}
