package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CachePeekMode;
import org.apache.ignite.cache.affinity.Affinity;
import org.apache.ignite.cluster.ClusterNode;

/**
 * Three server nodes whose clocks disagree by seconds around one virtual {@link #time}, a store
 * on each, and which node holds a key as primary or backup: what the tests of whose clock
 * decides share.
 */
final class SkewedCluster implements AutoCloseable {

    /** How far each node's clock is from the shared virtual time. */
    private static final long[] SKEW_MICROS = {-7_000_000L, 0L, 11_500_000L};

    final VirtualClock time = new VirtualClock(1_700_000_000_000_000L);
    final List<Ignite> nodes = new ArrayList<>();
    final List<Store> stores = new ArrayList<>();
    private final IgniteMembers members;

    /** Starts the nodes of cluster {@code clusterName} and a store on each; stops them again if that fails. */
    SkewedCluster(String clusterName) {
        members = new IgniteMembers(clusterName);
        try {
            for (int i = 0; i < SKEW_MICROS.length; i++) {
                Ignite node = members.startServer("n" + i);
                long skew = SKEW_MICROS[i];
                MemberClock.installForTesting(node, () -> time.nowMicros() + skew);
                nodes.add(node);
            }
            for (Ignite node : nodes) {
                stores.add(IgniteStore.builder(node).timeout(Duration.ofSeconds(10)).build());
            }
        } catch (RuntimeException | Error e) {
            members.close();
            throw e;
        }
    }

    /** The clock of {@code node}: the shared time and its skew. */
    TimeSource clockOf(Ignite node) {
        long skew = SKEW_MICROS[nodes.indexOf(node)];
        return () -> time.nowMicros() + skew;
    }

    /** One key {@code prefix} and a number for each node, whose primary that node is. */
    List<String> keysWithEveryNodeAsPrimary(String prefix) {
        List<String> keys = new ArrayList<>();
        for (Ignite node : nodes) {
            for (int i = 0; ; i++) {
                String key = prefix + i;
                if (!keys.contains(key) && primaryOf(key) == node) {
                    keys.add(key);
                    break;
                }
            }
        }
        return keys;
    }

    Ignite primaryOf(String key) {
        ClusterNode primary = affinity().mapKeyToNode(key);
        return nodes.stream().filter(node -> node.cluster().localNode().equals(primary)).findFirst().orElseThrow();
    }

    /** Checks that the backup holds the primary's copy of {@code key}'s value, byte for byte ({@code step} names the check). */
    void assertBackupHoldsThePrimarysCopy(String key, int step) {
        byte[] onPrimary = primaryOf(key).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                .localPeek(key, CachePeekMode.PRIMARY);
        byte[] onBackup = backupOf(key).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                .localPeek(key, CachePeekMode.BACKUP);
        assertThat(onBackup).as("backup copy at step %d", step).isEqualTo(onPrimary);
    }

    private Ignite backupOf(String key) {
        ClusterNode backup = affinity().mapKeyToPrimaryAndBackups(key).stream().skip(1).findFirst().orElseThrow();
        return nodes.stream().filter(node -> node.cluster().localNode().equals(backup)).findFirst().orElseThrow();
    }

    private Affinity<String> affinity() {
        return nodes.get(0).affinity(IgniteStore.DEFAULT_CACHE_NAME);
    }

    @Override
    public void close() {
        members.close();
    }
}
