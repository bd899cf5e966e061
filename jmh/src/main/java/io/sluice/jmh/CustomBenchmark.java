package io.sluice.jmh;

import io.sluice.api.StoreProvider;
import org.openjdk.jmh.annotations.Param;

/**
 * A store of your own, measured as Sluice's are: {@code store} names a {@link StoreProvider}
 * class (public, with a public no-argument constructor) on the class path, and every
 * {@link CustomImpl} {@code CUSTOM_} implementation runs one algorithm on a store it creates,
 * through a {@code RateLimiter}, beside Sluice's local store and the in-process peers.
 *
 * <pre>
 * SLUICE_JMH_CLASSPATH=my-store.jar jmh/run.sh quick custom store=com.example.MyStoreProvider
 * </pre>
 */
public class CustomBenchmark extends DecisionBenchmark {

    /** The class name of the {@link StoreProvider} that creates the store measured. */
    @Param("")
    public String store;

    /** The implementation measured. */
    @Param
    public CustomImpl impl;

    @Override
    protected Limiter createLimiter(LimitShape shape) throws ReflectiveOperationException {
        return impl.create(provider(store), shape);
    }

    static StoreProvider provider(String className) throws ReflectiveOperationException {
        if (className.isBlank()) {
            throw new IllegalArgumentException("the custom benchmark needs store=<class name of a StoreProvider>");
        }
        Class<?> type = Class.forName(className);
        if (!StoreProvider.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("store=" + className + " is not a " + StoreProvider.class.getName());
        }
        return (StoreProvider) type.getConstructor().newInstance();
    }
}
