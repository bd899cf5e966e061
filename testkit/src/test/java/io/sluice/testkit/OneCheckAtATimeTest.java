package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.lifecycle.TryExecutionResult;
import net.jqwik.api.lifecycle.TryExecutor;
import net.jqwik.api.lifecycle.TryLifecycleContext;
import org.junit.jupiter.api.Test;

/** An abandoned shrink's tries never reach the store once their property has been reported. */
class OneCheckAtATimeTest {

    /** What the property reports; the hook passes it on untouched. */
    private static final PropertyExecutionResult PROPERTY_RESULT = (PropertyExecutionResult) Proxy.newProxyInstance(
            PropertyExecutionResult.class.getClassLoader(), new Class<?>[] {PropertyExecutionResult.class},
            (proxy, called, args) -> {
                throw new UnsupportedOperationException(called.getName());
            });

    private final OneCheckAtATime hook = new OneCheckAtATime();
    private final AtomicInteger executedTries = new AtomicInteger();
    private final TryExecutor aTry = parameters -> {
        executedTries.incrementAndGet();
        return TryExecutionResult.falsified(new AssertionError("the store decided wrong"));
    };

    @Test
    void aTryOfTheRunningPropertyRuns() throws Exception {
        Object instance = new Object();
        Method property = method("aTryOfTheRunningPropertyRuns");
        AtomicReference<TryExecutionResult> during = new AtomicReference<>();

        hook.aroundProperty(propertyContext(property, instance), () -> {
            during.set(hook.aroundTry(tryContext(property, instance), aTry, List.of()));
            return PROPERTY_RESULT;
        });

        assertThat(executedTries).hasValue(1);
        assertThat(during.get().isFalsified()).isTrue();
    }

    @Test
    void aTryOfAReportedPropertyPassesWithoutRunning() throws Exception {
        Object instance = new Object();
        Method property = method("aTryOfAReportedPropertyPassesWithoutRunning");
        hook.aroundProperty(propertyContext(property, instance), () -> PROPERTY_RESULT);

        TryExecutionResult late = hook.aroundTry(tryContext(property, instance), aTry, List.of());

        assertThat(executedTries).hasValue(0);
        assertThat(late.isSatisfied()).isTrue();
    }

    @Test
    void aTryOfAnotherPropertyPassesWithoutRunningWhileOneRuns() throws Exception {
        Object instance = new Object();
        Method running = method("aTryOfTheRunningPropertyRuns");
        Method abandoned = method("aTryOfAReportedPropertyPassesWithoutRunning");
        AtomicReference<TryExecutionResult> late = new AtomicReference<>();

        hook.aroundProperty(propertyContext(running, instance), () -> {
            late.set(hook.aroundTry(tryContext(abandoned, instance), aTry, List.of()));
            return PROPERTY_RESULT;
        });

        assertThat(executedTries).hasValue(0);
        assertThat(late.get().isSatisfied()).isTrue();
    }

    private static Method method(String name) throws NoSuchMethodException {
        return OneCheckAtATimeTest.class.getDeclaredMethod(name);
    }

    private static PropertyLifecycleContext propertyContext(Method method, Object instance) {
        return context(PropertyLifecycleContext.class, method, instance);
    }

    private static TryLifecycleContext tryContext(Method method, Object instance) {
        return context(TryLifecycleContext.class, method, instance);
    }

    /** The two things the hook reads of jqwik's context: the property's method and test instance. */
    private static <T> T context(Class<T> type, Method method, Object instance) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, called, args) ->
                switch (called.getName()) {
                    case "targetMethod" -> method;
                    case "testInstance" -> instance;
                    default -> throw new UnsupportedOperationException(called.getName());
                }));
    }
}
