package io.sluice.jmh;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.sluice.store.hazelcast.HazelcastStore;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A two-member Hazelcast cluster on loopback: one member in a separate JVM
 * ({@link HazelcastMemberProcess}) and one in the benchmark's JVM, which is the caller, or
 * whose client is ({@link #start(Caller)}). The benchmarks use keys the other member owns, so
 * that every decision crosses the network, as it does for most keys of a real cluster. Maps
 * keep the default single backup, so a write is also copied to the member in the benchmark's
 * JVM.
 */
final class HazelcastCluster implements AutoCloseable {

    /** First type id of Bucket4j's custom serializers (they take a block of ids from here). */
    private static final int BUCKET4J_TYPE_ID_BASE = 1_000;
    private static final long STARTUP_TIMEOUT_SECONDS = 120;

    /** The JVM options Hazelcast asks for on Java 17 to reach the internal APIs it is fastest with. */
    static final List<String> JVM_ARGS = List.of("--add-modules", "java.se",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    /** The instance name of the caller's member in a {@linkplain #start(boolean) named} cluster. */
    static final String CALLER_NAME = "caller";
    /** The instance name of the other member in a {@linkplain #start(boolean) named} cluster. */
    static final String OWNER_NAME = "owner";

    /**
     * The end of the names of maps that both members keep in {@link InMemoryFormat#OBJECT}
     * format (Hazelcast's default is {@code BINARY}): a benchmark picks the format by the name.
     */
    static final String OBJECT_FORMAT_MAPS = "-object";

    private final Process remote;
    private final HazelcastInstance member;
    private final @Nullable HazelcastInstance client;

    private HazelcastCluster(Process remote, HazelcastInstance member, @Nullable HazelcastInstance client) {
        this.remote = remote;
        this.member = member;
        this.client = client;
    }

    /** Starts the remote member, then the caller's, and waits until partitions are settled. */
    static HazelcastCluster start() {
        return start(false);
    }

    /** As {@link #start()}, then, for {@link Caller#CLIENT}, a client of both members, which is the caller. */
    static HazelcastCluster start(Caller caller) {
        HazelcastCluster cluster = start();
        if (caller == Caller.MEMBER) {
            return cluster;
        }
        try {
            return new HazelcastCluster(cluster.remote, cluster.member,
                    HazelcastClient.newHazelcastClient(clientConfig(cluster.member)));
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * As {@link #start()}; with {@code named}, the members are the instances {@value #CALLER_NAME}
     * and {@value #OWNER_NAME}, so that their threads' names (and the first 15 characters the
     * kernel keeps of them) tell the two members apart. One named cluster per JVM at a time.
     */
    static HazelcastCluster start(boolean named) {
        String clusterName = "sluice-jmh-" + UUID.randomUUID();
        int remotePort = MemberProcess.freePort();
        int callerPort = MemberProcess.freePort();
        Process remote = startRemote(clusterName, remotePort, callerPort, named);
        try {
            Config callerConfig = config(clusterName, callerPort, remotePort);
            if (named) {
                callerConfig.setInstanceName(CALLER_NAME);
            }
            HazelcastInstance caller = Hazelcast.newHazelcastInstance(callerConfig);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_TIMEOUT_SECONDS);
            while (caller.getCluster().getMembers().size() < 2) {
                checkDeadline(caller, deadline);
                Thread.sleep(50);
            }
            // Partitions are assigned on first use: use them once both members are in, then
            // wait for the owners to settle.
            caller.getMap("sluice-jmh-startup").get("any");
            while (!caller.getPartitionService().isClusterSafe() || caller.getPartitionService().getPartitions()
                    .stream().anyMatch(partition -> partition.getOwner() == null)) {
                checkDeadline(caller, deadline);
                Thread.sleep(50);
            }
            return new HazelcastCluster(remote, caller, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            remote.destroyForcibly();
            throw new IllegalStateException("interrupted while starting Hazelcast", e);
        } catch (RuntimeException e) {
            remote.destroyForcibly();
            throw e;
        }
    }

    private static void checkDeadline(HazelcastInstance caller, long deadline) {
        if (System.nanoTime() > deadline) {
            caller.shutdown();
            throw new IllegalStateException("the Hazelcast members did not form a cluster in "
                    + STARTUP_TIMEOUT_SECONDS + " s: " + caller.getCluster().getMembers());
        }
    }

    /** The instance through which the benchmarks call: the member in this JVM, or its client when started with one. */
    HazelcastInstance caller() {
        return client != null ? client : member;
    }

    /** The process id of the member in the other JVM. */
    long remotePid() {
        return remote.pid();
    }

    /** Whether the member in the other JVM owns this key (of a map keyed by the object itself). */
    boolean ownedByRemote(Object key) {
        return !member.getPartitionService().getPartition(key).getOwner().localMember();
    }

    @Override
    public void close() {
        try {
            if (client != null) {
                client.shutdown();
            }
            member.shutdown();
        } finally {
            MemberProcess.stop(remote);
        }
    }

    /** The configuration of both members: loopback only, TCP/IP join, and the serializers in use. */
    static Config config(String clusterName, int ownPort, int otherPort) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "none");
        // Two known members on loopback: join at once instead of waiting for more to appear.
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(ownPort).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true)
                .addMember("127.0.0.1:" + ownPort)
                .addMember("127.0.0.1:" + otherPort);
        config.addMapConfig(new MapConfig("*" + OBJECT_FORMAT_MAPS).setInMemoryFormat(InMemoryFormat.OBJECT));
        configureSerialization(config.getSerializationConfig());
        return config;
    }

    /** A client of {@code member}'s cluster, knowing all its members' addresses, with the members' serializers. */
    private static ClientConfig clientConfig(HazelcastInstance member) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(member.getConfig().getClusterName());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "none");
        for (Member each : member.getCluster().getMembers()) {
            config.getNetworkConfig().addAddress(each.getAddress().getHost() + ":" + each.getAddress().getPort());
        }
        configureSerialization(config.getSerializationConfig());
        return config;
    }

    private static void configureSerialization(SerializationConfig serialization) {
        HazelcastStore.configureSerialization(serialization);
        HazelcastProxyManager.addCustomSerializers(serialization, BUCKET4J_TYPE_ID_BASE);
        serialization.addDataSerializableFactory(TokenBucketFloorProcessor.FACTORY_ID, new TokenBucketFloorProcessor.Factory());
    }

    private static Process startRemote(String clusterName, int ownPort, int callerPort, boolean named) {
        List<String> args = new ArrayList<>(List.of(clusterName, Integer.toString(ownPort), Integer.toString(callerPort)));
        if (named) {
            args.add(OWNER_NAME);
        }
        return MemberProcess.start("Hazelcast member", JVM_ARGS, HazelcastMemberProcess.class, args,
                HazelcastMemberProcess.READY);
    }
}
