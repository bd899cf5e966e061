package io.sluice.algorithms.calls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** A bounded call ends with its answer or with a timeout, whichever comes first, and never both. */
class DeadlinesTest {

    @Test
    void aCallThatAnswersInTimeEndsWithItsAnswer() throws Exception {
        try (Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofSeconds(30))) {
            CompletableFuture<String> call = new CompletableFuture<>();
            CompletableFuture<String> bounded = deadlines.bound(call);
            assertThat(bounded).isNotDone();
            call.complete("answer");
            assertThat(bounded.get(30, TimeUnit.SECONDS)).isEqualTo("answer");
        }
    }

    @Test
    void aCallThatFailsInTimeEndsWithItsFailure() {
        try (Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofSeconds(30))) {
            CompletableFuture<String> bounded = deadlines.bound(
                    CompletableFuture.failedFuture(new IllegalStateException("down")));
            assertThatThrownBy(bounded::join).isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(IllegalStateException.class).hasMessage("down");
        }
    }

    @Test
    void aCallThatDoesNotAnswerTimesOutAndItsOwnFutureIsLeftAlone() {
        try (Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofMillis(20))) {
            CompletableFuture<String> call = new CompletableFuture<>();
            CompletableFuture<String> bounded = deadlines.bound(call);
            assertThatThrownBy(bounded::join).cause().isInstanceOf(TimeoutException.class);
            assertThat(call).isNotDone();
            // a late answer changes nothing
            call.complete("late");
            assertThat(bounded).isCompletedExceptionally();
        }
    }

    @Test
    void lateCallsExpireInTheOrderTheyWereAddedAndAnsweredOnesNever() {
        try (Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofMillis(20))) {
            List<String> expired = new ArrayList<>();
            List<CompletableFuture<Void>> ended = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String name = "call " + i;
                CompletableFuture<Void> end = new CompletableFuture<>();
                ended.add(end);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                boolean answered = i % 2 == 0;
                deadlines.add(new Deadlines.Expirable() {
                    @Override
                    public long deadline() {
                        return deadline;
                    }

                    @Override
                    public boolean isDone() {
                        return answered;
                    }

                    @Override
                    public void expire() {
                        synchronized (expired) {
                            expired.add(name);
                        }
                        end.complete(null);
                    }
                });
                if (answered) {
                    end.complete(null);
                }
            }
            CompletableFuture.allOf(ended.toArray(CompletableFuture[]::new)).join();
            synchronized (expired) {
                assertThat(expired).containsExactly("call 1", "call 3", "call 5");
            }
        }
    }

    @Test
    void anAnswerInTimeCompletedByAnotherThreadWinsElseItTimesOut() throws Exception {
        try (Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofSeconds(30))) {
            CompletableFuture<String> answered = deadlines.answerInTime();
            CompletableFuture.runAsync(() -> answered.complete("done"));
            assertThat(answered.get(30, TimeUnit.SECONDS)).isEqualTo("done");
        }
        try (Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofMillis(20))) {
            CompletableFuture<String> unanswered = deadlines.answerInTime();
            assertThatThrownBy(unanswered::join).cause().isInstanceOf(TimeoutException.class);
        }
    }

    @Test
    void callsThatEndedLeaveTheQueueBeforeTheirDeadline() throws Exception {
        try (Deadlines deadlines = new Deadlines("test-deadlines-drop-", Duration.ofDays(1))) {
            ReferenceQueue<Object> collected = new ReferenceQueue<>();
            Object answer = new Object();
            WeakReference<Object> reference = new WeakReference<>(answer, collected);
            CompletableFuture<String> first = new CompletableFuture<>();
            deadlines.bound(first);
            // the thread sleeps until the first call's deadline, a day from now (holding that call)
            awaitTimedWaiting("test-deadlines-drop-");
            CompletableFuture<Object> call = new CompletableFuture<>();
            deadlines.bound(call);
            first.complete("first");
            call.complete(answer);
            answer = null;
            call = null;
            // the next calls drop the ended one, a day before its deadline
            for (int i = 0; i < 3; i++) {
                deadlines.bound(new CompletableFuture<>().completeAsync(() -> "done"));
            }
            for (int i = 0; i < 100 && reference.get() != null; i++) {
                System.gc();
                collected.remove(100);
            }
            assertThat(reference.get()).isNull();
        }
    }

    private static void awaitTimedWaiting(String threadPrefix) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Thread.getAllStackTraces().keySet().stream().noneMatch(thread ->
                thread.getName().startsWith(threadPrefix) && thread.getState() == Thread.State.TIMED_WAITING)) {
            assertThat(System.nanoTime()).as("the thread of " + threadPrefix + " never slept").isLessThan(deadline);
            Thread.yield();
        }
    }

    @Test
    void onceClosedWatchedAndNewCallsExpireAtOnce() {
        Deadlines deadlines = new Deadlines("test-deadlines-", Duration.ofDays(1));
        CompletableFuture<String> watched = deadlines.bound(new CompletableFuture<>());
        deadlines.close();
        assertThatThrownBy(watched::join).cause().isInstanceOf(TimeoutException.class);
        assertThatThrownBy(deadlines.bound(new CompletableFuture<>())::join).cause()
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void aTimeoutThatIsNotPositiveIsRejectedNamingIt() {
        assertThatThrownBy(() -> new Deadlines("x", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> new Deadlines("x", Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
    }
}
