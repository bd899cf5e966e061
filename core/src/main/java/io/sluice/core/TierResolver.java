package io.sluice.core;

import java.util.Optional;

/**
 * Finds the tier of an API key: the service-provider interface for key registries.
 *
 * <p>The default reads the {@code api-keys} list of the policy file. To use a database,
 * set your own on {@link PolicyLimiterBuilder#tierResolver(TierResolver)}; it is called
 * on every request that carries a key, so it must answer from memory (a cache in front of
 * the database, refreshed in the background): docs/configuration.md shows one.
 *
 * <p>Implementations are thread-safe. A resolver that throws is treated as not knowing
 * the key, and the policy's {@code unknown} rule applies. Keys longer than 1,024
 * characters are unknown keys without asking the resolver.
 */
@FunctionalInterface
public interface TierResolver {

    /**
     * The name of the key's tier, or empty when the key is unknown. A tier name that the
     * policy does not define is treated as an unknown key.
     */
    Optional<String> tierOf(String apiKey);
}
