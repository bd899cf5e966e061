package io.sluice.gateway;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.store.local.LocalStore;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The stores the simulation can run on, by the name {@code --store} takes. A shared store
 * (Redis, Hazelcast, Ignite) joins as one more constant that opens a client under the
 * simulation's clock.
 */
enum StoreKind {

    /** The in-process store, {@code sluice-store-local}. */
    LOCAL("local") {
        @Override
        Store open(TimeSource clock) {
            return LocalStore.builder().clockForTesting(clock).build();
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

    /** Opens a new, empty store whose decisions use {@code clock}. */
    abstract Store open(TimeSource clock);

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
