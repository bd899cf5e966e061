package io.sluice.gateway;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sluice gateway} in a JVM of its own, as an operator runs it: the test's class path,
 * free ports, stopped with SIGTERM (its graceful shutdown).
 */
final class GatewayProcess implements AutoCloseable {

    private static final Pattern STARTED = Pattern.compile(
            "sluice gateway: http://[^:]+:(\\d+) -> .* \\(admin http://[^:]+:(\\d+)\\)");

    private final Process process;
    private final int port;
    private final int adminPort;
    private final List<String> output;
    private final Thread reader;

    private GatewayProcess(Process process, int port, int adminPort, List<String> output, Thread reader) {
        this.process = process;
        this.reader = reader;
        this.port = port;
        this.adminPort = adminPort;
        this.output = output;
    }

    static GatewayProcess start(Path config, String upstream) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-Xmx256m", "-cp", classPath, Sluice.class.getName(),
                "gateway", "--config", config.toString(), "--upstream", upstream, "--host", "127.0.0.1",
                "--port", "0", "--admin-port", "0", "--shutdown-timeout", "10s")
                .redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        CompletableFuture<Matcher> started = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    synchronized (output) {
                        output.add(line);
                    }
                    Matcher matcher = STARTED.matcher(line);
                    if (matcher.find()) {
                        started.complete(matcher);
                    }
                }
                started.completeExceptionally(new IllegalStateException("the gateway process ended: " + output));
            } catch (Exception e) {
                started.completeExceptionally(e);
            }
        }, "gateway-process-output");
        reader.setDaemon(true);
        reader.start();
        try {
            Matcher ports = started.get(120, TimeUnit.SECONDS);
            return new GatewayProcess(process, Integer.parseInt(ports.group(1)), Integer.parseInt(ports.group(2)),
                    output, reader);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IllegalStateException("the gateway process did not start: " + output, e);
        }
    }

    int port() {
        return port;
    }

    int adminPort() {
        return adminPort;
    }

    /** Stops it with SIGTERM and waits; its exit code (143, as any JVM ended by SIGTERM). */
    int stop() throws InterruptedException {
        // Process.destroy() would also close the pipe of its output, losing what the shutdown prints.
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the gateway process did not stop on SIGTERM: " + output());
        }
        reader.join(10_000);
        return process.exitValue();
    }

    String output() {
        synchronized (output) {
            return String.join(File.separator.equals("/") ? "\n" : "\r\n", output);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            stop();
        }
    }
}
