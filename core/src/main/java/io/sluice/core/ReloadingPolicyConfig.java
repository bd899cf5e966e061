package io.sluice.core;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The policy of a file, swapped for the new one whenever the file changes, without a
 * restart: on a change seen by a file watch, and on {@link #reload()} (for an admin API).
 *
 * <p>The swap is atomic: {@link #current()} returns either the old policy or the new one,
 * never a mix, and a request that started on the old one finishes on it. A file that
 * cannot be used is rejected with its line and reason: the previous policy stays in
 * force, a warning is logged, {@link #rejectedReloads()} counts it and the
 * {@link Listener} hears of it. So does any other failure while a changed file is read or
 * checked, even an {@link Error} such as an {@link OutOfMemoryError} (logged as an error):
 * the watch goes on, and the next change is read. If the watch ever stops for another
 * reason than {@link #close()}, it says so in an error log and {@link #watching()} turns false.
 *
 * <p>The watch covers the file's directory, so that an editor's or Kubernetes'
 * replace-by-rename is seen too; a reload whose file content is unchanged does nothing.
 * Write the new file beside the old one and rename it over, so that the watch never reads
 * a half-written file (which it would reject, keeping the previous policy).
 */
public final class ReloadingPolicyConfig implements AutoCloseable {

    private static final System.Logger LOGGER = System.getLogger(ReloadingPolicyConfig.class.getName());
    /** Changes closer together than this are read once: an editor's save is several events. */
    private static final long SETTLE_MILLIS = 100;

    /** Hears of every reload; for metrics. Called on the thread that reloaded. */
    public interface Listener {

        /** A new policy is in force. */
        default void applied(PolicyConfig config) {
        }

        /** A changed file was rejected; the previous policy stays in force. */
        default void rejected(PolicyConfigException reason) {
        }
    }

    private final Path file;
    private final Listener listener;
    private final WatchService watchService;
    private final Thread watcher;
    private final AtomicLong rejectedReloads = new AtomicLong();
    private volatile PolicyConfig current;
    /**
     * The content last read, applied or rejected, so that an unchanged file is not parsed
     * again; {@code null} after a failure that may not happen again (such as running out of memory).
     */
    private byte @Nullable [] lastContent;
    /** Why {@link #lastContent} was rejected; {@code null} when it is in force. */
    private @Nullable PolicyConfigException lastRejection;
    private volatile boolean closed;

    private ReloadingPolicyConfig(Path file, Listener listener, WatchService watchService, byte[] content,
                                  PolicyConfig config) {
        this.file = file;
        this.listener = listener;
        this.watchService = watchService;
        this.lastContent = content;
        this.current = config;
        this.watcher = new Thread(this::watch, "sluice-policy-watch");
        this.watcher.setDaemon(true);
        this.watcher.start();
    }

    /** Loads a policy file and watches it. */
    public static ReloadingPolicyConfig watch(Path file) {
        return watch(file, new Listener() { });
    }

    /**
     * Loads a policy file and watches it, telling {@code listener} of every later reload.
     *
     * @throws PolicyConfigException when the file cannot be used: there is no previous
     *     policy to keep
     */
    public static ReloadingPolicyConfig watch(Path file, Listener listener) {
        Objects.requireNonNull(listener, "listener");
        Path absolute = file.toAbsolutePath().normalize();
        Path directory = absolute.getParent();
        if (directory == null) {
            throw new PolicyConfigException(absolute.toString(), 0, "a policy file is a file, not the root", null);
        }
        WatchService watchService = null;
        try {
            // Watch before reading, so that no change between the two is missed.
            watchService = absolute.getFileSystem().newWatchService();
            directory.register(watchService, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
            byte[] content = Files.readAllBytes(absolute);
            PolicyConfig config = PolicyConfig.parse(new String(content, StandardCharsets.UTF_8), absolute.toString());
            return new ReloadingPolicyConfig(absolute, listener, watchService, content, config);
        } catch (IOException | RuntimeException e) {
            closeQuietly(watchService);
            if (e instanceof PolicyConfigException) {
                throw (PolicyConfigException) e;
            }
            throw new PolicyConfigException(absolute.toString(), 0, "cannot read or watch the file: " + e, e);
        }
    }

    private static void closeQuietly(@Nullable WatchService watchService) {
        if (watchService != null) {
            try {
                watchService.close();
            } catch (IOException e) {
                LOGGER.log(Level.WARNING, "closing a file watch failed", e);
            }
        }
    }

    /** The policy in force. */
    public PolicyConfig current() {
        return current;
    }

    /**
     * Reads the file now and swaps in its policy if it changed.
     *
     * @return the policy in force afterwards
     * @throws PolicyConfigException when the file is rejected, now or when it was last read
     *     unchanged (the previous policy stays in force)
     */
    public synchronized PolicyConfig reload() {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw rejected(new PolicyConfigException(file.toString(), 0, "cannot read the file: " + e, e));
        }
        if (Arrays.equals(content, lastContent)) {
            if (lastRejection != null) {
                // Already counted and logged; the caller still learns why the file is not in force.
                throw lastRejection;
            }
            return current;
        }
        lastContent = content;
        PolicyConfig next;
        try {
            next = PolicyConfig.parse(new String(content, StandardCharsets.UTF_8), file.toString());
        } catch (PolicyConfigException e) {
            lastRejection = e;
            throw rejected(e);
        } catch (RuntimeException | Error e) {
            // Not a problem of the file's content, as far as anyone can tell: read it again next time.
            lastContent = null;
            lastRejection = null;
            throw rejected(new PolicyConfigException(file.toString(), 0, "checking the file failed: " + e, e));
        }
        lastRejection = null;
        current = next;
        LOGGER.log(Level.INFO, "policy reloaded from {0}: {1}", file, next);
        listener.applied(next);
        return next;
    }

    /** How many changed files were rejected since the start. */
    public long rejectedReloads() {
        return rejectedReloads.get();
    }

    /**
     * Whether changes of the file are still applied: {@code false} after {@link #close()},
     * and if the watch stopped for any other reason (which is logged as an error).
     */
    public boolean watching() {
        return !closed && watcher.isAlive();
    }

    /** Stops watching the file; {@link #current()} keeps answering the last policy. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(watchService);
        watcher.interrupt();
    }

    private PolicyConfigException rejected(PolicyConfigException reason) {
        rejectedReloads.incrementAndGet();
        if (reason.getCause() instanceof Error) {
            LOGGER.log(Level.ERROR, "policy file could not be checked, the previous policy stays in force: "
                    + reason.getMessage(), reason.getCause());
        } else {
            LOGGER.log(Level.WARNING, "policy file rejected, the previous policy stays in force: {0}",
                    reason.getMessage());
        }
        listener.rejected(reason);
        return reason;
    }

    private void watch() {
        Throwable failure = null;
        try {
            watchChanges();
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            if (!closed) {
                LOGGER.log(Level.ERROR, "the watch of " + file + " stopped: changes of the file are no longer "
                        + "applied until a restart", failure);
            }
        }
    }

    private void watchChanges() {
        try {
            while (true) {
                WatchKey key = watchService.take();
                boolean changed = drain(key);
                // Let a burst of events (an editor's save) settle, then read once.
                WatchKey more;
                while ((more = watchService.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    changed |= drain(more);
                }
                if (changed) {
                    reloadQuietly();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed
        }
    }

    /**
     * Whether the key had events. Any event in the directory may concern the file: by its
     * name, or through a link it resolves through (Kubernetes swaps a {@code ..data} link);
     * {@link #reload()} skips an unchanged file.
     */
    private static boolean drain(WatchKey key) {
        boolean hadEvents = !key.pollEvents().isEmpty();
        key.reset();
        return hadEvents;
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (PolicyConfigException e) {
            // already logged, counted and reported by reload()
        } catch (RuntimeException | Error e) {
            // A listener's failure; the policy was applied or rejected and counted before it. The watch goes on.
            LOGGER.log(Level.ERROR, "reloading " + file + " failed in a listener; the file is still watched", e);
        }
    }
}
