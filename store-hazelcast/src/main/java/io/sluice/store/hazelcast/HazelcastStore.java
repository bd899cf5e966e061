package io.sluice.store.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast store: the state of every key in one entry of an {@code IMap}, changed only
 * by an entry processor that runs the Java reference algorithms on the key's partition
 * owner, with the owner's clock. All limits of a key live in that entry, so a decision on
 * several limits is one {@code submitToKey}. Backups receive the state the owner computed
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
        private @Nullable TimeSource clock;

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
            Objects.requireNonNull(mapName, "mapName");
            if (mapName.isEmpty()) {
                throw new IllegalArgumentException("mapName must not be empty");
            }
            this.mapName = mapName;
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
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
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
         * Builds the store.
         *
         * @throws IllegalStateException when the instance is a member whose configuration
         *     does not register the serialization factory {@link #SERIALIZATION_FACTORY_ID}
         */
        public Store build() {
            if (instance.getLocalEndpoint() instanceof Member) {
                checkFactoryRegistered();
            }
            return new EntryProcessorStore(instance, mapName, timeout, clock);
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
