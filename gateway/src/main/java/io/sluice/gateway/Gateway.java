package io.sluice.gateway;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.api.TimeSource;
import io.sluice.core.PolicyLimiter;
import io.sluice.core.ReloadingPolicyConfig;
import io.sluice.core.StoreGuard;
import io.sluice.http.HttpRateLimiter;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.jspecify.annotations.Nullable;

/**
 * A running gateway: a reverse proxy that decides every request by the policy file and forwards
 * what is admitted to the upstream, plus an admin port. {@link #close()} shuts it down
 * gracefully: it stops accepting connections, lets the requests in flight finish (up to the
 * shutdown timeout), then gives leased tokens back and closes the store.
 */
final class Gateway implements AutoCloseable {

    private static final System.Logger LOGGER = System.getLogger(Gateway.class.getName());
    /** Counters of the top-denied sketch: memory stays bounded whatever the number of clients. */
    static final int TOP_DENIED_CAPACITY = 1_000;

    /**
     * How to run: the file, the upstream, where to listen, how long shutdown may wait, and
     * whether to limit at all (without, the same proxy forwards everything: the baseline that
     * the limiter's added latency is measured against).
     */
    record Settings(Path config, URI upstream, String host, int port, String adminHost, int adminPort,
                    Duration shutdownTimeout, boolean limiting) {
        Settings {
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(upstream, "upstream");
            if (!"http".equals(upstream.getScheme()) && !"https".equals(upstream.getScheme())) {
                throw new IllegalArgumentException("the upstream must be an http:// or https:// URI: " + upstream);
            }
        }
    }

    private final Server proxy;
    private final Server admin;
    private final PolicyLimiter limiter;
    private final ConfiguredStore store;
    private final ReloadingPolicyConfig config;

    private Gateway(Server proxy, Server admin, PolicyLimiter limiter, ConfiguredStore store,
                    ReloadingPolicyConfig config) {
        this.proxy = proxy;
        this.admin = admin;
        this.limiter = limiter;
        this.store = store;
        this.config = config;
    }

    /**
     * Reads the config, opens its store and starts listening.
     *
     * @throws io.sluice.core.PolicyConfigException or {@link GatewayConfigException} for a bad file
     * @throws IllegalStateException when a port cannot be opened
     */
    static Gateway start(Settings settings) {
        GatewayConfig gatewayConfig = GatewayConfig.load(settings.config());
        return start(settings, gatewayConfig, () -> ConfiguredStore.open(gatewayConfig.store()), null);
    }

    /**
     * Starts on the store {@code openStore} opens, which the gateway then owns. Tests give one under
     * a virtual clock, and the same clock as {@code clockForTesting}, so that the store guard's
     * block cache and breaker run on it too.
     */
    static Gateway start(Settings settings, GatewayConfig gatewayConfig, Supplier<ConfiguredStore> openStore,
                         @Nullable TimeSource clockForTesting) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ConfigTracker tracker = new ConfigTracker(settings.config().toAbsolutePath().normalize(), registry);
        ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(settings.config(), tracker);
        ConfiguredStore store;
        try {
            store = openStore.get();
        } catch (RuntimeException e) {
            config.close();
            throw e;
        }
        try {
            // The core's meters (decisions by rule and outcome, store latency and errors, breaker, block
            // cache) go to the same registry as the gateway's, on /metrics.
            StoreGuard.Builder guard = StoreGuard.custom().meterRegistry(registry)
                    .storeName(gatewayConfig.store().kind());
            if (gatewayConfig.store().timeout() != null) {
                // The config's timeout is how long a decision may take: the guard's limit as well as the store's.
                guard.timeout(gatewayConfig.store().timeout());
            }
            if (gatewayConfig.store().instances() > 0) {
                guard.instances(gatewayConfig.store().instances());
            }
            if (clockForTesting != null) {
                guard.clockForTesting(clockForTesting);
            }
            PolicyLimiter policyLimiter = PolicyLimiter.builder().config(config).store(store.store()).guard(guard.build())
                    .build();
            HttpRateLimiter limiter = HttpRateLimiter.custom(policyLimiter).identity(gatewayConfig.identity())
                    .headers(gatewayConfig.headerFamilies()).build();
            DecisionRecorder recorder = new DecisionRecorder(registry, new TopDenied(TOP_DENIED_CAPACITY));

            Server proxy = new Server();
            proxy.addConnector(connector(proxy, settings.host(), settings.port()));
            UnaryOperator<HttpURI> toUpstream = upstreamUris(settings.upstream());
            ProxyHandler.Reverse forward = new ProxyHandler.Reverse(request -> toUpstream.apply(request.getHttpURI()));
            proxy.setHandler(new GracefulHandler(settings.limiting()
                    ? new LimitingHandler(limiter, recorder, forward) : forward));
            proxy.setStopTimeout(settings.shutdownTimeout().toMillis());

            Server admin = new Server();
            admin.addConnector(connector(admin, settings.adminHost(), settings.adminPort()));
            admin.setHandler(new AdminHandler(registry, store, config, tracker, gatewayConfig, recorder));

            Gateway gateway = new Gateway(proxy, admin, policyLimiter, store, config);
            try {
                proxy.start();
                admin.start();
            } catch (Exception e) {
                gateway.close();
                throw new IllegalStateException("the gateway could not start: " + e, e);
            }
            LOGGER.log(Level.INFO, "sluice gateway on port {0} (admin {1}) to {2}, store {3}, policy {4}", String.valueOf(gateway.port()),
                    String.valueOf(gateway.adminPort()), settings.upstream(), store.description(), config.current());
            return gateway;
        } catch (RuntimeException e) {
            store.close();
            config.close();
            throw e;
        }
    }

    private static ServerConnector connector(Server server, String host, int port) {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    /**
     * Where each request goes: the upstream's scheme, host and port (and path prefix), with the
     * request's path and query. The upstream is parsed and its prefix trimmed once, here: per
     * request, that was a regular expression compiled and a URI parsed on every forwarded call.
     */
    static UnaryOperator<HttpURI> upstreamUris(URI upstream) {
        String path = upstream.getRawPath() == null ? "" : upstream.getRawPath();
        int end = path.length();
        while (end > 0 && path.charAt(end - 1) == '/') {
            end--;
        }
        String prefix = path.substring(0, end);
        HttpURI base = HttpURI.from(upstream.toString());
        return request -> HttpURI.build(base).path(prefix + request.getPath()).query(request.getQuery());
    }

    /** The port of the proxy. */
    int port() {
        return ((ServerConnector) proxy.getConnectors()[0]).getLocalPort();
    }

    /** The port of the admin endpoints. */
    int adminPort() {
        return ((ServerConnector) admin.getConnectors()[0]).getLocalPort();
    }

    /**
     * Stops accepting, waits for the requests in flight (up to the shutdown timeout), then
     * closes the admin port, the limiter (which gives its leases' unused tokens back), the
     * store and the config watch.
     */
    @Override
    public void close() {
        try {
            proxy.stop();
        } catch (Exception e) {
            LOGGER.log(Level.WARNING, "stopping the proxy failed", e);
        }
        try {
            admin.stop();
        } catch (Exception e) {
            LOGGER.log(Level.WARNING, "stopping the admin port failed", e);
        }
        limiter.close();
        store.close();
        config.close();
    }
}
