package io.sluice.store.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.Store;
import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridChecks;
import io.sluice.algorithms.grid.GridStore;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast store: the state of every key in one entry of an {@code IMap}, changed only
 * by an entry processor that runs the Java reference algorithms on the key's partition
 * owner, with the owner's clock. All limits of a key live in that entry, so a decision on
 * several limits is one call to the key's owner. Backups receive the state the owner computed
 * (they never recompute it), and every entry has a time to live that ends when all its
 * limits are fully reset, so idle keys cost no memory.
 *
 * <pre>{@code
 * Config config = new Config();
 * HazelcastStore.configureSerialization(config.getSerializationConfig());
 * HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
 * Store store = HazelcastStore.builder(member).mapName("sluice").build();
 * RateLimiter limiter = RateLimiter.builder().limit(limit).store(store).build();
 * }</pre>
 *
 * <p>The instance may be a member (embedded: the gateway is a member of the cluster) or a
 * client of an existing cluster. Every member of the cluster needs {@code sluice-api},
 * {@code sluice-algorithms} and {@code sluice-store-hazelcast} on its class path and the
 * serialization factory {@link #SERIALIZATION_FACTORY_ID} registered; a client needs
 * neither the factory nor anything else. Backups follow the map's configuration on the
 * members ({@code backup-count}, 1 by default).
 *
 * <p>The store counts the limiter instances that share the map ({@link io.sluice.api.InstanceCount},
 * the divisor of the fallback during an outage): it announces itself every
 * {@linkplain Builder#heartbeatInterval heartbeat interval} in the map
 * {@code <map name>-instances}; each store built counts as one instance, on a member or a
 * client, and a member that builds no store is not counted. See docs/stores/hazelcast.md.
 *
 * <p>A failure (no member reachable, a timeout, an error on the member) completes the
 * store's stage with a {@link io.sluice.api.StoreUnavailableException} whose cause is
 * Hazelcast's exception; it is never reported as a denial.
 */
public final class HazelcastStore {

    /**
     * The id of the data-serializable factory that reads this store's entry processors on
     * the members. Declarative member configuration registers it as
     * {@code io.sluice.store.hazelcast.ProcessorFactory} under this id.
     */
    public static final int SERIALIZATION_FACTORY_ID = ProcessorFactory.FACTORY_ID;

    /** The map a store uses unless told otherwise. */
    public static final String DEFAULT_MAP_NAME = "sluice";

    /** How long a decision may take unless told otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);

    /** How many decisions may be waiting for the cluster at once unless told otherwise. */
    public static final int DEFAULT_CONCURRENCY = 64;

    /**
     * A member's property (in its configuration's {@code properties}, or a system property of
     * its JVM): {@code false} makes it send its backups the new state's bytes after every
     * admission, as versions before 2026-12-02 did, instead of the request to replay at its time
     * when the state is the larger (a sliding log). Set it on the members of this version while
     * members of an earlier version, which cannot read a replay, are in the cluster (a rolling
     * upgrade). Unset, or any other value: the replay is on.
     */
    public static final String REPLAY_BACKUPS_PROPERTY = "sluice.hazelcast.replay-backups";

    /**
     * A member's property, as {@link #REPLAY_BACKUPS_PROPERTY}: {@code false} (or
     * {@link #REPLAY_BACKUPS_PROPERTY} {@code false}) makes it keep a long state (a sliding
     * log's) in a map of {@code OBJECT} in-memory format as its bytes, rewritten by every
     * admission, as versions before 2026-12-03 did, instead of as an object that an admission
     * changes in place. Set it on the members of this version while members of an earlier
     * version, which cannot read such a value, are in the cluster (a rolling upgrade). Unset,
     * or any other value: long states are kept in place in {@code OBJECT} maps.
     */
    public static final String STATE_IN_PLACE_PROPERTY = "sluice.hazelcast.state-in-place";

    /**
     * A store's property (its member's configuration's {@code properties}, or a system property
     * of its JVM, a client's included): {@code false} makes the store send its decisions without
     * the chunks of long sliding logs, which keeps each log whole in its key's entry, as versions
     * before 2026-12-03 did, instead of as a bounded head there and its older entries in the map
     * {@code <map>.chunks} (see docs/stores/hazelcast.md). Set it on the stores of this version
     * while members of an earlier version, which refuse a request with chunks, are in the cluster
     * (a rolling upgrade), from before the first member of this version joins: a log kept as a
     * head cannot be decided without its chunks (a store failure). Unset, or any other value:
     * chunks are on.
     */
    public static final String LOG_CHUNKS_PROPERTY = "sluice.hazelcast.log-chunks";

    /** How long {@link Builder#build()} waits for its warm-up decisions at most. */
    static final Duration WARM_UP_PATIENCE = Duration.ofSeconds(10);

    private static final System.Logger LOGGER = System.getLogger(HazelcastStore.class.getName());

    private HazelcastStore() {
    }

    /**
     * Registers the factory of this store's entry processors in a member's serialization
     * configuration (of {@code com.hazelcast.config.Config}); every member of the cluster
     * needs it before it starts. Clients do not.
     */
    public static void configureSerialization(SerializationConfig serializationConfig) {
        Objects.requireNonNull(serializationConfig, "serializationConfig")
                .addDataSerializableFactory(ProcessorFactory.FACTORY_ID, new ProcessorFactory());
    }

    /**
     * Creates a builder of a store on {@code instance}, a member or a client. The store does
     * not own the instance: closing the store leaves it running.
     */
    public static Builder builder(HazelcastInstance instance) {
        return new Builder(Objects.requireNonNull(instance, "instance"));
    }

    /** Builds a Hazelcast store. Not thread-safe; the store it builds is. */
    public static final class Builder {

        private final HazelcastInstance instance;
        private String mapName = DEFAULT_MAP_NAME;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int concurrency = DEFAULT_CONCURRENCY;
        private @Nullable TimeSource clock;
        private boolean countInstances = true;
        private Duration heartbeatInterval = Heartbeat.DEFAULT_INTERVAL;

        private Builder(HazelcastInstance instance) {
            this.instance = instance;
        }

        /**
         * The name of the {@code IMap} that holds the states; {@link #DEFAULT_MAP_NAME} by
         * default. Its backup count and other settings come from the members' configuration.
         *
         * @throws IllegalArgumentException when the name is empty
         */
        public Builder mapName(String mapName) {
            this.mapName = GridChecks.nonEmpty("mapName", mapName);
            return this;
        }

        /**
         * How long a decision may take before it fails as a store failure;
         * {@link #DEFAULT_TIMEOUT} by default. A request that timed out may still be
         * charged on the member: that only ever denies more, never admits more.
         *
         * @throws IllegalArgumentException when the timeout is not positive
         */
        public Builder timeout(Duration timeout) {
            this.timeout = GridChecks.positive("timeout", timeout);
            return this;
        }

        /**
         * How many calls may be waiting for the cluster on the store's threads at once;
         * {@link #DEFAULT_CONCURRENCY} by default. Each waits on a thread of the store (a blocking
         * call that no slow node can make the caller wait for beyond the timeout); up to
         * {@value GridCalls#QUEUED_PER_THREAD} times as many more queue for a thread, and beyond
         * that a call fails at once as a store failure. These are the leases, the give-backs and
         * the decisions made before the map's proxy exists. On a member as on a client,
         * {@code RateLimiter.decide} waits on its own thread instead (bounded by the timeout
         * alike), and {@code decideAsync}'s answer only passes through one of these threads,
         * which completes its stage: neither waits for a thread nor counts against the bound.
         *
         * @throws IllegalArgumentException when below 1
         */
        public Builder concurrency(int concurrency) {
            this.concurrency = GridChecks.atLeast("concurrency", 1, concurrency);
            return this;
        }

        /**
         * Whether this store announces itself to the other stores of the map and counts them (on
         * by default): the number of instances the fallback divides each limit by when the guard
         * is given none. Off, the store neither writes the registry nor answers a count.
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
         * Test-only: decisions use this clock, read by the caller and carried by the entry
         * processor, instead of the owning member's clock; entries then get no Hazelcast
         * time to live (virtual time and Hazelcast's wall-clock expiry would disagree) and
         * expire logically only. Never set it from configuration.
         */
        public Builder clockForTesting(TimeSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Builds the store and warms it up, so that the first decisions do not pay for
         * connecting and loading classes: creates the map's proxy and runs the entry processor
         * once on every member that owns partitions, with a request that writes nothing,
         * waiting up to 10 seconds. When the cluster does not answer, the store is returned
         * all the same (its decisions fail as store failures until the cluster answers) and
         * the warm-up's failure is logged.
         *
         * @throws IllegalStateException when the instance is a member whose configuration
         *     does not register the serialization factory {@link #SERIALIZATION_FACTORY_ID}
         */
        public Store build() {
            if (instance.getLocalEndpoint() instanceof Member) {
                checkFactoryRegistered();
            }
            Heartbeat heartbeat = countInstances
                    ? HazelcastHeartbeat.start(instance, mapName, heartbeatInterval, clock) : null;
            MapCalls owners = new MapCalls(instance, mapName);
            GridCalls calls = new GridCalls("the Hazelcast map '" + mapName + "'", timeout, concurrency);
            ChunkMap chunks = sendsChunks() ? new ChunkMap(instance, mapName, calls, clock == null) : null;
            GridStore store = new GridStore("HazelcastStore[" + calls + "]", calls, owners, owners, chunks, clock,
                    heartbeat);
            Throwable failure = store.warmUp(owners.warmUpKeys(), WARM_UP_PATIENCE);
            if (failure != null) {
                LOGGER.log(System.Logger.Level.WARNING, "the Hazelcast store on map '" + mapName
                        + "' could not warm up; its first decisions may fail until the cluster answers", failure);
            }
            return store;
        }

        /** Whether the store sends the chunks of long sliding logs ({@link #LOG_CHUNKS_PROPERTY}). */
        private boolean sendsChunks() {
            // A member's configuration falls back to the JVM's system properties itself.
            String configured = instance.getLocalEndpoint() instanceof Member
                    ? instance.getConfig().getProperty(LOG_CHUNKS_PROPERTY) : System.getProperty(LOG_CHUNKS_PROPERTY);
            return !"false".equals(configured);
        }

        private void checkFactoryRegistered() {
            SerializationConfig serialization = instance.getConfig().getSerializationConfig();
            if (!serialization.getDataSerializableFactories().containsKey(ProcessorFactory.FACTORY_ID)
                    && !serialization.getDataSerializableFactoryClasses()
                            .containsKey(ProcessorFactory.FACTORY_ID)) {
                throw new IllegalStateException("member " + instance.getName()
                        + " cannot read Sluice's entry processors: register their factory with"
                        + " HazelcastStore.configureSerialization(config.getSerializationConfig())"
                        + " before starting it, or declare factory id " + ProcessorFactory.FACTORY_ID
                        + " as " + ProcessorFactory.class.getName());
            }
        }
    }
}
