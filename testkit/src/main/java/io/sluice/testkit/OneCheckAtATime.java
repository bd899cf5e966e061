package io.sluice.testkit;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.AroundTryHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.lifecycle.TryExecutionResult;
import net.jqwik.api.lifecycle.TryExecutor;
import net.jqwik.api.lifecycle.TryLifecycleContext;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the kit's checks from running into each other on the one store and virtual clock a
 * test class shares.
 *
 * <p>Why: when jqwik's shrinking of a failed property reaches its time bound, jqwik reports
 * the property and moves on, but it does not stop the shrinking, which goes on running tries
 * on another thread. Those tries move the shared virtual clock under the checks that follow,
 * and one failure then shows up as several unrelated ones. Here a try runs only while its own
 * property is the one running, so an abandoned shrink's tries pass without touching the
 * store (and end that shrink), and tries hold one lock, so a try in flight when its property
 * ended finishes before the next check's first try starts.
 */
final class OneCheckAtATime implements AroundPropertyHook, AroundTryHook {

    private static final ReentrantLock ONE_TRY = new ReentrantLock();
    private static volatile @Nullable Running running;

    /** A property execution: its method on its test instance. */
    private record Running(Method method, Object instance) {

        boolean is(Method otherMethod, Object otherInstance) {
            return method.equals(otherMethod) && instance == otherInstance;
        }
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        running = new Running(context.targetMethod(), context.testInstance());
        try {
            return property.execute();
        } finally {
            running = null;
        }
    }

    @Override
    public TryExecutionResult aroundTry(TryLifecycleContext context, TryExecutor aTry, List<Object> parameters) {
        ONE_TRY.lock();
        try {
            Running current = running;
            if (current == null || !current.is(context.targetMethod(), context.testInstance())) {
                // A try of a property that was already reported: an abandoned shrink.
                return TryExecutionResult.satisfied();
            }
            return aTry.execute(parameters);
        } finally {
            ONE_TRY.unlock();
        }
    }

    @Override
    public int aroundPropertyProximity() {
        // Outermost, so that the property counts as running for all of its hooks' work.
        return -100;
    }
}
