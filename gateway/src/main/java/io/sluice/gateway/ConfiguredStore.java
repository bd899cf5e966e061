package io.sluice.gateway;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.store.hazelcast.HazelcastStore;
import io.sluice.store.ignite.IgniteStore;
import io.sluice.store.local.LocalStore;
import io.sluice.store.redis.RedisStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteSystemProperties;
import org.apache.ignite.Ignition;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

/**
 * The store a gateway config names, opened, with whatever it needed started for it (a
 * Hazelcast member or client, an Ignite node); closing closes the store, then those.
 */
final class ConfiguredStore implements AutoCloseable {

    /**
     * Hazelcast's own shutdown hook would stop the member or client while the gateway still
     * finishes requests in flight; the gateway stops it itself, last.
     */
    private static final String SHUTDOWN_HOOK = "hazelcast.shutdownhook.enabled";
    /** A gateway does not report home. */
    private static final String PHONE_HOME = "hazelcast.phone.home.enabled";
    /** How long a grid client may look for its cluster before the gateway's start fails. */
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
    /** The port or port range at the end of an Ignite discovery address: {@code host:47500..47509}. */
    private static final Pattern PORT_RANGE = Pattern.compile(":(\\d+)(?:\\.\\.(\\d+))?$");

    private final Store store;
    private final String description;
    private final List<AutoCloseable> owned;

    private ConfiguredStore(Store store, String description, List<AutoCloseable> owned) {
        this.store = store;
        this.description = description;
        this.owned = owned;
    }

    /** A store opened elsewhere (a test's, under a virtual clock), owned from now on. */
    static ConfiguredStore of(Store store, String description) {
        return new ConfiguredStore(store, description, List.of());
    }

    /** Opens the store; fails when it cannot be reached (a gateway without its store must not start). */
    static ConfiguredStore open(GatewayConfig.StoreSettings settings) {
        return switch (settings.kind()) {
            case "local" -> new ConfiguredStore(LocalStore.builder().maximumSize(settings.maximumSize()).build(),
                    "local (in-process, at most " + settings.maximumSize() + " keys)", List.of());
            case "redis" -> redis(settings);
            case "hazelcast" -> hazelcast(settings);
            case "ignite" -> ignite(settings);
            default -> throw new IllegalArgumentException("unknown store type '" + settings.kind() + "'");
        };
    }

    private static ConfiguredStore redis(GatewayConfig.StoreSettings settings) {
        List<RedisURI> uris = new ArrayList<>();
        for (String uri : settings.uris()) {
            uris.add(RedisURI.create(uri));
        }
        boolean cluster = "cluster".equals(settings.mode());
        RedisStore.Builder builder = cluster ? RedisStore.cluster(uris) : RedisStore.standalone(uris.get(0));
        builder.readKeySchema1(settings.readKeySchema1());
        if (settings.timeout() != null) {
            builder.commandTimeout(settings.timeout());
        }
        if (settings.instances() > 0) {
            // A number given in the file replaces the store's count: no heartbeat to keep.
            builder.countInstances(false);
        }
        // Never print a URI: it may hold a password.
        return new ConfiguredStore(builder.build(), cluster ? "redis cluster (" + uris.size() + " seed nodes)"
                : "redis (standalone)", List.of());
    }

    private static ConfiguredStore hazelcast(GatewayConfig.StoreSettings settings) {
        HazelcastInstance instance;
        if ("member".equals(settings.mode())) {
            Config config = new Config();
            config.setProperty(SHUTDOWN_HOOK, "false");
            config.setProperty(PHONE_HOME, "false");
            if (settings.clusterName() != null) {
                config.setClusterName(settings.clusterName());
            }
            JoinConfig join = config.getNetworkConfig().getJoin();
            join.getMulticastConfig().setEnabled(false);
            join.getTcpIpConfig().setEnabled(true).setMembers(settings.addresses().isEmpty()
                    ? List.of("127.0.0.1") : settings.addresses());
            HazelcastStore.configureSerialization(config.getSerializationConfig());
            instance = Hazelcast.newHazelcastInstance(config);
        } else {
            ClientConfig config = new ClientConfig();
            config.setProperty(SHUTDOWN_HOOK, "false");
            config.setProperty(PHONE_HOME, "false");
            if (settings.clusterName() != null) {
                config.setClusterName(settings.clusterName());
            }
            config.getNetworkConfig().setAddresses(settings.addresses());
            // Fail the start, saying why, rather than wait forever for a cluster that is not there.
            config.getConnectionStrategyConfig().getConnectionRetryConfig()
                    .setClusterConnectTimeoutMillis(JOIN_TIMEOUT.toMillis());
            instance = HazelcastClient.newHazelcastClient(config);
        }
        try {
            HazelcastStore.Builder builder = HazelcastStore.builder(instance);
            if (settings.name() != null) {
                builder.mapName(settings.name());
            }
            if (settings.timeout() != null) {
                builder.timeout(settings.timeout());
            }
            if (settings.instances() > 0) {
                builder.countInstances(false);
            }
            return new ConfiguredStore(builder.build(), "hazelcast " + settings.mode(), List.of(instance::shutdown));
        } catch (RuntimeException e) {
            instance.shutdown();
            throw e;
        }
    }

    private static ConfiguredStore ignite(GatewayConfig.StoreSettings settings) {
        TcpDiscoveryVmIpFinder finder = new TcpDiscoveryVmIpFinder();
        finder.setAddresses(settings.addresses().isEmpty() ? List.of("127.0.0.1:47500..47509") : settings.addresses());
        TcpDiscoverySpi discovery = new TcpDiscoverySpi().setIpFinder(finder);
        if ("client".equals(settings.mode())) {
            discovery.setJoinTimeout(JOIN_TIMEOUT.toMillis());
        } else if (!settings.addresses().isEmpty()) {
            // A server node must find itself among the addresses: it listens on the first one's ports.
            Matcher ports = PORT_RANGE.matcher(settings.addresses().get(0));
            if (ports.find()) {
                int first = Integer.parseInt(ports.group(1));
                int last = ports.group(2) == null ? first : Integer.parseInt(ports.group(2));
                discovery.setLocalPort(first).setLocalPortRange(Math.max(0, last - first));
            }
        }
        IgniteConfiguration configuration = new IgniteConfiguration()
                .setIgniteInstanceName("sluice-gateway-" + UUID.randomUUID())
                .setClientMode("client".equals(settings.mode()))
                .setDiscoverySpi(discovery);
        // The gateway's own shutdown stops the node once requests in flight are done, not before.
        System.setProperty(IgniteSystemProperties.IGNITE_NO_SHUTDOWN_HOOK, "true");
        Ignite ignite = Ignition.start(configuration);
        try {
            IgniteStore.Builder builder = IgniteStore.builder(ignite);
            if (settings.name() != null) {
                builder.cacheName(settings.name());
            }
            if (settings.timeout() != null) {
                builder.timeout(settings.timeout());
            }
            if (settings.instances() > 0) {
                builder.countInstances(false);
            }
            return new ConfiguredStore(builder.build(), "ignite " + settings.mode(), List.of(ignite::close));
        } catch (RuntimeException e) {
            ignite.close();
            throw e;
        }
    }

    Store store() {
        return store;
    }

    /** What the store is, for logs and the admin port; never a password. */
    String description() {
        return description;
    }

    @Override
    public void close() {
        store.close();
        for (AutoCloseable resource : owned) {
            try {
                resource.close();
            } catch (Exception e) {
                System.getLogger(ConfiguredStore.class.getName()).log(System.Logger.Level.WARNING,
                        "stopping the store's " + description + " failed", e);
            }
        }
    }
}
