package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@link OutOfMemoryError} while a watched file is checked: a JVM with a small heap
 * watches a policy, the policy is replaced by a valid file too large for that heap, then by
 * a small one. The failure is counted and heard as a rejected reload, and the watch goes on
 * to apply the next file.
 */
class ReloadOutOfMemoryTest {

    static final String HEAP = "-Xmx40m";

    @TempDir
    Path directory;

    @Test
    void theWatchSurvivesAnOutOfMemoryErrorAndAppliesTheNextFile() throws Exception {
        Files.writeString(directory.resolve("sluice.yaml"), ReloadingPolicyConfigTest.policy("permits: 100",
                "permits: 1000"));
        // About 6 MB: under the size limit, but its node tree needs some 150 MB of heap.
        Files.writeString(directory.resolve("too-large.yaml"), LargePolicyFileTest.generate(10, 1, 170_000),
                StandardCharsets.UTF_8);
        Files.writeString(directory.resolve("next.yaml"), ReloadingPolicyConfigTest.policy("permits: 50",
                "permits: 1000"));

        Process watcher = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                HEAP, "-cp", System.getProperty("java.class.path"), Watch.class.getName(), directory.toString())
                .redirectErrorStream(true).start();
        String output = new String(watcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(watcher.waitFor(5, TimeUnit.MINUTES)).isTrue();

        assertThat(output).as("output of the watching JVM (" + HEAP + ")")
                .contains("rejected: checking the file failed: java.lang.OutOfMemoryError")
                .contains("applied: 50 permits, 1 rejected reload, watching true");
        assertThat(watcher.exitValue()).isZero();
    }

    /** Runs in the small-heap JVM. */
    static final class Watch {
        public static void main(String[] args) throws Exception {
            Path directory = Path.of(args[0]);
            Path file = directory.resolve("sluice.yaml");
            BlockingQueue<Object> events = new LinkedBlockingQueue<>();
            try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file,
                    ReloadingPolicyConfigTest.listenerInto(events))) {
                Files.move(directory.resolve("too-large.yaml"), file, StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                Object first = events.poll(2, TimeUnit.MINUTES);
                if (!(first instanceof PolicyConfigException rejection)) {
                    throw new AssertionError("expected a rejection, got " + first);
                }
                System.out.println("rejected: " + rejection.reason());

                Files.move(directory.resolve("next.yaml"), file, StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
                Object second = events.poll(2, TimeUnit.MINUTES);
                if (!(second instanceof PolicyConfig applied)) {
                    throw new AssertionError("expected the next file applied, got " + second);
                }
                long permits = applied.tiers().get(0).limits().get(0).limit().permits();
                System.out.println("applied: " + permits + " permits, " + config.rejectedReloads()
                        + " rejected reload, watching " + config.watching());
            }
        }
    }
}
