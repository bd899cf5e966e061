package io.sluice.simulator;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.store.hazelcast.HazelcastStore;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One Hazelcast member in this JVM, started for the command: a cluster of its own (a unique
 * cluster name, members found only on 127.0.0.1 by TCP-IP, no multicast), so it joins no
 * other cluster on the machine. Its stores run the entry processors on it.
 */
final class EmbeddedHazelcast implements StoreBackend {

    /** Held so the level sticks: JUL keeps loggers weakly. */
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");

    private final HazelcastInstance member;

    private EmbeddedHazelcast(HazelcastInstance member) {
        this.member = member;
    }

    /** Starts the member; its warnings and errors go to standard error, its chatter nowhere. */
    static EmbeddedHazelcast start() {
        HAZELCAST_LOG.setLevel(Level.WARNING);
        Config config = new Config();
        config.setClusterName("sluice-simulate-" + UUID.randomUUID());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(5801).setPortAutoIncrement(true).setPortCount(200);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1");
        HazelcastStore.configureSerialization(config.getSerializationConfig());
        return new EmbeddedHazelcast(Hazelcast.newHazelcastInstance(config));
    }

    @Override
    public Store open(TimeSource clock) {
        return HazelcastStore.builder(member).timeout(CALL_TIMEOUT).clockForTesting(clock).build();
    }

    @Override
    public void close() {
        member.shutdown();
    }
}
