package io.sluice.algorithms.calls;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class CausesTest {

    @Test
    void aFailureIsReadOutOfTheStagesAndFuturesWrappers() {
        TimeoutException timeout = new TimeoutException("late");
        assertThat(Causes.of(new CompletionException(new ExecutionException(timeout)))).isSameAs(timeout);
        assertThat(Causes.of(timeout)).isSameAs(timeout);
    }

    @Test
    void aWrapperWithoutACauseIsTheFailure() {
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(Causes.of(bare)).isSameAs(bare);
    }
}
