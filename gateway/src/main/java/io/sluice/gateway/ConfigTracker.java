package io.sluice.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyConfigException;
import io.sluice.core.ReloadingPolicyConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * Which policy is in force and since when, for /admin/config: hears every reload of the file,
 * counts them (applied, rejected) and keeps the content hash of the version applied, so that
 * operators can compare the versions a fleet runs.
 */
final class ConfigTracker implements ReloadingPolicyConfig.Listener {

    /** A policy version: its order of loading in this process, its file's SHA-256 prefix, when it took effect. */
    record Version(long generation, String sha256, Instant loadedAt) {
    }

    private final Path file;
    private final Counter applied;
    private final Counter rejected;
    private volatile Version version;
    private volatile @Nullable String lastRejection;

    ConfigTracker(Path file, MeterRegistry registry) {
        this.file = file;
        this.applied = Counter.builder("sluice.gateway.config.reloads").tag("result", "applied")
                .description("Policy file reloads").register(registry);
        this.rejected = Counter.builder("sluice.gateway.config.reloads").tag("result", "rejected")
                .description("Policy file reloads").register(registry);
        this.version = new Version(1, hash(), Instant.now());
    }

    @Override
    public void applied(PolicyConfig config) {
        applied.increment();
        lastRejection = null;
        version = new Version(version.generation() + 1, hash(), Instant.now());
    }

    @Override
    public void rejected(PolicyConfigException reason) {
        rejected.increment();
        lastRejection = reason.getMessage();
    }

    Version version() {
        return version;
    }

    /** Why the file's current content is not in force, if it is not. */
    @Nullable String lastRejection() {
        return lastRejection;
    }

    /** The file as read right after it was applied (a change in between shows as the next reload). */
    private String hash() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (IOException | NoSuchAlgorithmException e) {
            return "unreadable";
        }
    }
}
