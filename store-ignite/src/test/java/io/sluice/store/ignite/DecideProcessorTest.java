package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.annotation.Annotation;
import java.lang.reflect.AccessibleObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecideProcessorTest {

    /**
     * Ignite wraps a processor that asks for a resource in a proxy it marshals with Java
     * serialization and injects on every call (see the class comment): the processor must ask
     * for none.
     */
    @Test
    void asksIgniteToInjectNothing() {
        List<String> injected = new ArrayList<>();
        List<AccessibleObject> members = new ArrayList<>(List.of(DecideProcessor.class.getDeclaredFields()));
        members.addAll(List.of(DecideProcessor.class.getDeclaredMethods()));
        for (AccessibleObject member : members) {
            for (Annotation annotation : member.getAnnotations()) {
                if (annotation.annotationType().getPackageName().equals("org.apache.ignite.resources")) {
                    injected.add(member + ": " + annotation);
                }
            }
        }
        assertThat(injected).isEmpty();
    }
}
