package io.sluice.store.ignite;

import java.util.List;
import org.apache.ignite.lang.IgniteCallable;

/**
 * Run on every server node before the store creates its cache: a cache configuration that
 * names a class a server lacks makes that server fail when it receives it, so the store first
 * asks each server whether it has the classes. A server without {@code sluice-store-ignite}
 * cannot even read this job, and its failure comes back to the caller.
 */
final class ClassPathCheck implements IgniteCallable<String> {

    private static final long serialVersionUID = 1L;

    /** Classes of each jar the servers need, besides this one's. */
    private static final List<String> REQUIRED = List.of(
            "io.sluice.store.ignite.StateExpiry$Factory",
            "io.sluice.store.ignite.DecideProcessor",
            "io.sluice.algorithms.KeyState",
            "io.sluice.api.Limit");

    /** The required classes this node lacks, comma-separated; empty when it has them all. */
    @Override
    public String call() {
        StringBuilder missing = new StringBuilder();
        for (String name : REQUIRED) {
            try {
                Class.forName(name, false, ClassPathCheck.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                missing.append(missing.length() == 0 ? "" : ", ").append(name);
            }
        }
        return missing.toString();
    }
}
