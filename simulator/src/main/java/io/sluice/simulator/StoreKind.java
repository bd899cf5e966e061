package io.sluice.simulator;

import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.store.local.LocalStore;
import io.sluice.store.redis.RedisStore;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The stores the simulation can run on, by the name {@code --store} takes. */
enum StoreKind {

    /** The in-process store, {@code sluice-store-local}: a new, empty one for every store opened. */
    LOCAL("local") {
        @Override
        StoreBackend start(@Nullable RedisURI redis) {
            return new StoreBackend() {
                @Override
                public Store open(TimeSource clock) {
                    return LocalStore.builder().clockForTesting(clock).build();
                }

                @Override
                public void close() {
                }
            };
        }
    },

    /** A Redis the user runs, at {@code --redis URI}; each store opened is a connection of its own. */
    REDIS("redis") {
        @Override
        StoreBackend start(@Nullable RedisURI redis) {
            if (redis == null) {
                throw new IllegalArgumentException("--store redis needs --redis URI, such as redis://127.0.0.1:6379");
            }
            StoreBackend backend = new StoreBackend() {
                @Override
                public Store open(TimeSource clock) {
                    return RedisStore.standalone(redis).commandTimeout(CALL_TIMEOUT).clockForTesting(clock).build();
                }

                @Override
                public void close() {
                }
            };
            // Connect once now, so that a Redis that cannot be reached fails the command before any output.
            backend.open(() -> Simulation.START_MICROS).close();
            return backend;
        }
    },

    /** A Hazelcast member that the command starts in its own JVM. */
    HAZELCAST("hazelcast") {
        @Override
        StoreBackend start(@Nullable RedisURI redis) {
            return EmbeddedHazelcast.start();
        }
    },

    /** An Ignite server node that the command starts in its own JVM. */
    IGNITE("ignite") {
        @Override
        StoreBackend start(@Nullable RedisURI redis) {
            return EmbeddedIgnite.start();
        }
    };

    private final String optionName;

    StoreKind(String optionName) {
        this.optionName = optionName;
    }

    /** The name on the command line. */
    String optionName() {
        return optionName;
    }

    /** Whether the store keeps its state in this process, so each instance can have one of its own. */
    boolean inProcess() {
        return this == LOCAL;
    }

    /**
     * Starts what this kind of store needs for one command: nothing for the local store and
     * Redis, a member for Hazelcast and Ignite.
     *
     * @param redis the Redis to use; needed by {@link #REDIS} only
     * @throws IllegalArgumentException when {@link #REDIS} has no URI
     */
    abstract StoreBackend start(@Nullable RedisURI redis);

    /**
     * The store kind named {@code name}.
     *
     * @throws IllegalArgumentException naming the value when no store has that name
     */
    static StoreKind byName(String name) {
        for (StoreKind kind : values()) {
            if (kind.optionName.equals(name)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown store '" + name + "', expected one of "
                + Arrays.stream(values()).map(StoreKind::optionName).collect(Collectors.joining(", ")));
    }
}
