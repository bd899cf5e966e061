package io.sluice.testkit.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The {@code redis-server} executable the fixture runs, found once per JVM, in this order:
 * <ol>
 *   <li>the path in the system property {@value #PROPERTY}, when set (the value
 *       {@code bundled} skips the search and takes the bundled binary);</li>
 *   <li>{@code redis-server} on the {@code PATH};</li>
 *   <li>the binary bundled in {@code com.github.codemonstur:embedded-redis:1.4.3}, a dependency
 *       of the test kit (Redis 6.2 for Linux and macOS, x86-64 and arm64).</li>
 * </ol>
 * Docker (Testcontainers) is not used.
 */
final class RedisBinary {

    /** System property that names the executable to use, or {@code bundled}. */
    static final String PROPERTY = "sluice.redis.server";

    /** The binaries inside embedded-redis 1.4.3, by operating system and architecture. */
    private static final Map<String, String> BUNDLED = Map.of(
            "linux/amd64", "/redis-server-6.2.6-v5-linux-amd64",
            "linux/arm64", "/redis-server-6.2.7-linux-arm64",
            "mac/amd64", "/redis-server-6.2.6-v5-darwin-amd64",
            "mac/arm64", "/redis-server-6.2.6-v5-darwin-arm64");

    private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

    private static @Nullable RedisBinary found;
    private static @Nullable RedisBinary bundledFound;

    private final Path executable;
    private final String origin;
    private final String version;

    private RedisBinary(Path executable, String origin) {
        this.executable = executable;
        this.origin = origin;
        this.version = readVersion(executable);
    }

    /**
     * The executable to run.
     *
     * @throws IllegalStateException saying what was tried when there is none
     */
    static synchronized RedisBinary get() {
        if (found == null) {
            found = find(System.getProperty(PROPERTY, "").trim(), System.getenv("PATH"));
            System.getLogger(RedisBinary.class.getName()).log(System.Logger.Level.INFO,
                    "Redis for tests: redis-server " + found.version + " from " + found.origin);
        }
        return found;
    }

    /**
     * The bundled Redis 6.2, whatever {@link #get()} found: a mixed cluster's older master.
     *
     * @throws IllegalStateException when the test kit bundles none for this platform
     */
    static synchronized RedisBinary bundled() {
        if (bundledFound == null) {
            bundledFound = bundled("for a mixed cluster's older master").orElseThrow(() -> new IllegalStateException(
                    "a mixed cluster needs the redis-server bundled in com.github.codemonstur:embedded-redis:1.4.3,"
                    + " and there is none for " + platform() + " on the class path"));
            System.getLogger(RedisBinary.class.getName()).log(System.Logger.Level.INFO,
                    "Redis for tests: redis-server " + bundledFound.version + " from "
                            + bundledFound.origin);
        }
        return bundledFound;
    }

    Path executable() {
        return executable;
    }

    /** Where the executable came from, for logs: the property, the PATH or the bundled jar. */
    String origin() {
        return origin;
    }

    /** The version {@code redis-server --version} reports, such as {@code 7.0.15}. */
    String version() {
        return version;
    }

    /**
     * Finds the executable as {@link #get()} does, with {@code property} the value of
     * {@value #PROPERTY} and {@code pathVariable} the {@code PATH}, if there is one.
     */
    static RedisBinary find(String property, @Nullable String pathVariable) {
        if (property.equals("bundled")) {
            return bundled("as " + PROPERTY + "=bundled asks").orElseThrow(() -> new IllegalStateException(
                    PROPERTY + "=bundled but there is no bundled redis-server for " + platform()
                    + " on the class path: com.github.codemonstur:embedded-redis:1.4.3, which the test kit"
                    + " depends on, is missing (excluded?) or has no binary for this platform"));
        }
        if (!property.isEmpty()) {
            Path path = Path.of(property);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(PROPERTY + " names no executable file: " + property);
            }
            return new RedisBinary(path, "system property " + PROPERTY + " (" + path + ")");
        }
        Optional<RedisBinary> binary = onPath(pathVariable).or(() -> bundled("none on the PATH"));
        return binary.orElseThrow(() -> new IllegalStateException(
                "No redis-server for tests. Tried, in order: redis-server on the PATH (not found; "
                        + "install it, for example with 'apt-get install -y redis-server'); Docker "
                        + "(not used by this fixture); the binary bundled in "
                        + "com.github.codemonstur:embedded-redis:1.4.3, a dependency of the test kit (none "
                        + "for " + platform() + ", or the jar is excluded). Or set -D" + PROPERTY + "=/path/to/redis-server."));
    }

    private static Optional<RedisBinary> onPath(@Nullable String pathVariable) {
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String directory : pathVariable.split(File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new RedisBinary(candidate, "the PATH (" + candidate + ")"));
            }
        }
        return Optional.empty();
    }

    /** The bundled binary, extracted to a temporary file; {@code why} is logged with its origin. */
    private static Optional<RedisBinary> bundled(String why) {
        String resource = BUNDLED.get(platform());
        if (resource == null) {
            return Optional.empty();
        }
        try (InputStream in = RedisBinary.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            Path directory = Files.createTempDirectory("sluice-redis-binary-");
            Path executable = directory.resolve("redis-server");
            Files.copy(in, executable, StandardCopyOption.REPLACE_EXISTING);
            if (!executable.toFile().setExecutable(true)) {
                throw new IOException("cannot make " + executable + " executable");
            }
            executable.toFile().deleteOnExit();
            directory.toFile().deleteOnExit();
            return Optional.of(new RedisBinary(executable,
                    "the embedded-redis 1.4.3 jar (" + resource + "), " + why));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the bundled redis-server " + resource, e);
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osName = os.contains("linux") ? "linux" : os.contains("mac") ? "mac" : os;
        String archName = arch.equals("x86_64") || arch.equals("amd64") ? "amd64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "arm64" : arch;
        return osName + "/" + archName;
    }

    private static String readVersion(Path executable) {
        try {
            Process process = new ProcessBuilder(executable.toString(), "--version")
                    .redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(executable + " --version failed: " + output);
            }
            Matcher matcher = VERSION.matcher(output);
            if (!matcher.find()) {
                throw new IllegalStateException(executable + " --version printed no version: " + output);
            }
            return matcher.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + executable, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + executable, e);
        }
    }
}
