package io.sluice.store.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.TcpIpConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.TimeSource;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Real Hazelcast members (and clients) in this JVM, isolated from any other cluster: a
 * unique cluster name, TCP-IP join on 127.0.0.1 to the members already started, no
 * multicast and no auto-detection, and settings that make joining and failure detection
 * take seconds rather than minutes.
 */
final class TestCluster implements AutoCloseable {

    private static final int BASE_PORT = 5801;

    /** Held so the level sticks: JUL keeps loggers weakly. */
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");

    static {
        HAZELCAST_LOG.setLevel(Level.WARNING);
    }

    private final String name = "sluice-test-" + UUID.randomUUID();
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final List<HazelcastInstance> clients = new ArrayList<>();

    /** Starts a member on the system clock with the store's serialization registered. */
    HazelcastInstance startMember() {
        return startMember(null, config -> { });
    }

    /**
     * Starts a member and waits until it has joined. {@code clock}, when set, is the member's
     * clock for the entry processors; {@code customize} changes the config before start.
     */
    HazelcastInstance startMember(TimeSource clock, Consumer<Config> customize) {
        Config config = memberConfig();
        if (clock != null) {
            config.getUserContext().put(MemberClock.USER_CONTEXT_KEY, clock);
        }
        customize.accept(config);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        members.add(member);
        return member;
    }

    /** The configuration of a member of this cluster, with the store's factory registered. */
    Config memberConfig() {
        Config config = new Config();
        config.setClusterName(name);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.partition.count", "71");
        config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        config.setProperty("hazelcast.max.no.heartbeat.seconds", "10");
        config.setProperty("hazelcast.graceful.shutdown.max.wait", "60");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(BASE_PORT).setPortAutoIncrement(true).setPortCount(200);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        TcpIpConfig tcpIp = join.getTcpIpConfig().setEnabled(true);
        for (String address : runningMemberAddresses()) {
            tcpIp.addMember(address);
        }
        HazelcastStore.configureSerialization(config.getSerializationConfig());
        return config;
    }

    /** Starts a client of this cluster; it needs nothing of the store's. */
    HazelcastInstance startClient() {
        ClientConfig config = new ClientConfig();
        config.setClusterName(name);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        runningMemberAddresses().forEach(config.getNetworkConfig()::addAddress);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        clients.add(client);
        return client;
    }

    /** The running members, in the order they started. */
    List<HazelcastInstance> members() {
        return members.stream().filter(m -> m.getLifecycleService().isRunning()).toList();
    }

    /** The running member that owns {@code key}'s partition. */
    HazelcastInstance owner(String key) {
        Member owner = members().get(0).getPartitionService().getPartition(key).getOwner();
        return members().stream()
                .filter(m -> m.getCluster().getLocalMember().equals(owner))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no running member owns " + key));
    }

    /** A key whose partition {@code member} owns. */
    String keyOwnedBy(HazelcastInstance member, String prefix) {
        for (int i = 0; ; i++) {
            String key = prefix + "-" + i;
            if (owner(key) == member) {
                return key;
            }
        }
    }

    private List<String> runningMemberAddresses() {
        List<String> addresses = new ArrayList<>();
        for (HazelcastInstance member : members()) {
            InetSocketAddress address = (InetSocketAddress) member.getCluster().getLocalMember().getSocketAddress();
            addresses.add("127.0.0.1:" + address.getPort());
        }
        if (addresses.isEmpty()) {
            addresses.add("127.0.0.1:" + BASE_PORT);
        }
        return addresses;
    }

    @Override
    public void close() {
        clients.forEach(HazelcastInstance::shutdown);
        // Terminating skips the migrations a graceful shutdown would wait for.
        members().forEach(m -> m.getLifecycleService().terminate());
    }
}
