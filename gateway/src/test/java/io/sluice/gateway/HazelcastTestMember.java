package io.sluice.gateway;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.store.hazelcast.HazelcastStore;
import java.util.List;
import java.util.UUID;

/**
 * The gateway's tests' and benchmark's Hazelcast server: one member on 127.0.0.1, in a cluster
 * of a name of its own, that a gateway connects to as a client or joins as a member.
 */
final class HazelcastTestMember implements AutoCloseable {

    private final HazelcastInstance instance;
    private final String clusterName;

    private HazelcastTestMember(HazelcastInstance instance, String clusterName) {
        this.instance = instance;
        this.clusterName = clusterName;
    }

    /** Starts a member of a new cluster whose name begins with {@code prefix}. */
    static HazelcastTestMember start(String prefix) {
        String clusterName = prefix + UUID.randomUUID();
        Config config = new Config().setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().setPort(5901).setPortAutoIncrement(true);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        // A member gateway joins by TCP/IP, and Hazelcast refuses a joiner of another kind.
        join.getTcpIpConfig().setEnabled(true).setMembers(List.of("127.0.0.1"));
        HazelcastStore.configureSerialization(config.getSerializationConfig());
        return new HazelcastTestMember(Hazelcast.newHazelcastInstance(config), clusterName);
    }

    HazelcastInstance instance() {
        return instance;
    }

    /** A gateway's {@code store:} section on this cluster, as a {@code client} or {@code member}, with {@code timeout}. */
    String storeSection(String mode, String timeout) {
        return """
                store:
                  type: hazelcast
                  mode: %s
                  cluster-name: %s
                  addresses: ["127.0.0.1:%d"]
                  timeout: %s
                """.formatted(mode, clusterName, instance.getCluster().getLocalMember().getAddress().getPort(),
                timeout);
    }

    @Override
    public void close() {
        instance.shutdown();
    }
}
