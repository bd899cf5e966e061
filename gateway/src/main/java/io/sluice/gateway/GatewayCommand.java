package io.sluice.gateway;

import io.sluice.simulator.DurationConverter;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code gateway} command: a rate-limiting reverse proxy in front of an API. */
@Command(name = "gateway", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = Sluice.Version.class,
        description = {
            "Runs a reverse proxy that decides every request by the policy file (tiers, keys, endpoints) "
                    + "and forwards what is admitted to the upstream; denied requests get 429 with Retry-After "
                    + "and a problem body, unknown keys 401. The policy reloads when the file changes.",
            "The store (local, redis, hazelcast, ignite) and the HTTP identity settings come from the "
                    + "file's store: and http: sections (docs/gateway.md).",
            ""})
final class GatewayCommand implements Callable<Integer> {

    /** The {@code --upstream} value that starts the built-in demo API. */
    static final String DEMO = "demo";

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", required = true,
            description = "The policy file, with optional store: and http: sections.")
    private Path config;

    @Option(names = "--upstream", paramLabel = "URI", required = true,
            description = "Where admitted requests go: http://host:port (a path prefix is kept), or 'demo' "
                    + "for a small built-in API on 127.0.0.1.")
    private String upstream;

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "0.0.0.0",
            description = "The address the proxy listens on (default ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "The proxy's port; 0 picks a free one (default ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--admin-host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "The address of the admin port: /metrics, /health, /admin/... (default ${DEFAULT-VALUE}).")
    private String adminHost;

    @Option(names = "--admin-port", paramLabel = "PORT", defaultValue = "9090",
            description = "The admin port; 0 picks a free one (default ${DEFAULT-VALUE}).")
    private int adminPort;

    @Option(names = "--shutdown-timeout", paramLabel = "DURATION", defaultValue = "30s",
            converter = DurationConverter.class,
            description = "On SIGTERM, how long requests in flight may take to finish (default ${DEFAULT-VALUE}).")
    private Duration shutdownTimeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        DemoUpstream demo = DEMO.equals(upstream) ? DemoUpstream.start() : null;
        URI target = demo != null ? demo.uri() : parseUpstream();
        Gateway gateway;
        try {
            gateway = Gateway.start(new Gateway.Settings(config, target, host, port, adminHost, adminPort,
                    shutdownTimeout, true));
        } catch (RuntimeException e) {
            if (demo != null) {
                demo.close();
            }
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            out.println("sluice gateway: stopping; requests in flight finish first");
            out.flush();
            gateway.close();
            out.println("sluice gateway: stopped");
            out.flush();
            try {
                if (demo != null) {
                    demo.close();
                }
            } catch (Exception e) {
                // The process is ending; the demo's threads end with it.
            }
            stopped.countDown();
        }, "sluice-shutdown"));
        out.printf("sluice gateway: http://%s:%d -> %s (admin http://%s:%d)%n", host, gateway.port(),
                demo != null ? "the demo API" : target, adminHost, gateway.adminPort());
        if (demo != null) {
            DemoHints.print(out, config, gateway.port(), gateway.adminPort());
        }
        out.flush();
        stopped.await();
        return 0;
    }

    private URI parseUpstream() {
        try {
            URI uri = URI.create(upstream);
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("not an http:// or https:// URI with a host");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--upstream must be http://host:port or 'demo', got '"
                    + upstream + "' (" + e.getMessage() + ")");
        }
    }
}
