package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A blocking call never holds its caller, and never runs for a caller that gave up. */
class GridCallsTest {

    @Test
    void aCallThatBlocksHoldsItsThreadNotTheCaller() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            CompletableFuture<String> answer = calls.call(() -> {
                await(release);
                return "done";
            });
            // call returned while the call is still blocked
            assertThat(answer).isNotDone();
            release.countDown();
            assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo("done");
        }
    }

    @Test
    void aCallThatDoesNotAnswerInTimeIsAStoreFailureWithATimeout() {
        CountDownLatch release = new CountDownLatch(1);
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofMillis(50), 1)) {
            CompletableFuture<String> answer = calls.call(() -> {
                await(release);
                return "late";
            });
            assertThatThrownBy(answer::join).isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("the test cluster did not answer within PT0.05S")
                    .cause().isInstanceOf(TimeoutException.class);
        } finally {
            release.countDown();
        }
    }

    @Test
    void aCallWhoseCallerGaveUpWhileItWaitedForAThreadIsNeverMade() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean made = new AtomicBoolean();
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofMillis(50), 1)) {
            CompletableFuture<String> first = calls.call(() -> {
                await(release);
                return "first";
            }, Duration.ofSeconds(30));
            CompletableFuture<Boolean> queued = calls.call(() -> made.getAndSet(true));
            assertThatThrownBy(queued::join).cause().hasCauseInstanceOf(TimeoutException.class);
            release.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("first");
            // the single thread is free again: a call made now runs, the abandoned one did not
            assertThat(calls.call(() -> "after", Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS)).isEqualTo("after");
            assertThat(made).isFalse();
        }
    }

    @Test
    void whenTooManyCallsWaitANewOneFailsAtOnce() throws Exception {
        // One call running on the only thread, then as many waiting as may wait.
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            calls.call(() -> {
                running.countDown();
                await(release);
                return null;
            });
            assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < GridCalls.QUEUED_PER_THREAD; i++) {
                calls.call(() -> {
                    await(release);
                    return null;
                });
            }
            CompletableFuture<Object> refused = calls.call(() -> "never");
            assertThat(refused).isCompletedExceptionally();
            assertThatThrownBy(refused::join).cause().isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("calls already wait");
        } finally {
            release.countDown();
        }
    }

    @Test
    void aFailureIsAStoreFailureWithItsCauseAndAClosedPoolTakesNoCalls() {
        GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 2);
        IllegalStateException failure = new IllegalStateException("member gone");
        assertThatThrownBy(() -> calls.call(() -> {
            throw failure;
        }).join()).cause().isInstanceOf(StoreUnavailableException.class).hasCause(failure);
        calls.close();
        assertThatThrownBy(() -> calls.call(() -> "never").join()).cause()
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
    }

    @Test
    void aCallAwaitedOnTheCallersThreadAnswersThere() {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            Thread caller = Thread.currentThread();
            GridCalls.Started<String> started = timeoutNanos -> {
                assertThat(Thread.currentThread()).isSameAs(caller);
                assertThat(timeoutNanos).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30).toNanos());
                return "answered";
            };
            String answered = calls.await(() -> started);
            assertThat(answered).isEqualTo("answered");
            String done = calls.await(() -> GridCalls.Started.of(CompletableFuture.completedFuture("done")));
            assertThat(done).isEqualTo("done");
        }
    }

    @Test
    void anAwaitedCallThatDoesNotAnswerInTimeIsAStoreFailureWithATimeout() {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofMillis(50), 1)) {
            CompletableFuture<String> never = new CompletableFuture<>();
            assertThatThrownBy(() -> calls.await(() -> GridCalls.Started.of(never)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("the test cluster did not answer within PT0.05S")
                    .cause().isInstanceOf(TimeoutException.class);
        }
    }

    @Test
    void anAwaitedFailureIsAStoreFailureWithItsCauseAndAClosedPoolAwaitsNothing() {
        GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1);
        IllegalStateException failure = new IllegalStateException("member gone");
        assertThatThrownBy(() -> calls.await(() -> GridCalls.Started.of(CompletableFuture.failedFuture(failure))))
                .isInstanceOf(StoreUnavailableException.class).hasCause(failure);
        assertThatThrownBy(() -> calls.await(() -> {
            throw failure;
        })).isInstanceOf(StoreUnavailableException.class).hasCause(failure);
        calls.close();
        AtomicBoolean started = new AtomicBoolean();
        GridCalls.Started<String> never = timeoutNanos -> "never";
        assertThatThrownBy(() -> calls.await(() -> {
            started.set(true);
            return never;
        })).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
        assertThat(started).isFalse();
    }

    @Test
    void anInterruptedWaitIsAStoreFailureAndKeepsTheInterrupt() {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> calls.await(() -> GridCalls.Started.of(new CompletableFuture<String>())))
                    .isInstanceOf(StoreUnavailableException.class).hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Test
    void aSentCallFreesItsThreadAndIsAnsweredByTheThreadThatReceivesTheAnswer() throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            List<CompletableFuture<String>> unanswered = new CopyOnWriteArrayList<>();
            CompletableFuture<String> first = calls.send(unanswered::add);
            // The only thread sent the first call and is free for the second, both unanswered.
            CompletableFuture<String> second = calls.send(unanswered::add);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (unanswered.size() < 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(unanswered).hasSize(2);
            assertThat(first).isNotDone();
            Thread answering = new Thread(() -> {
                unanswered.get(0).complete("first");
                unanswered.get(1).complete("second");
            }, "the cluster's thread");
            AtomicReference<String> completedOn = new AtomicReference<>();
            CompletableFuture<String> watched = second.whenComplete((answer, failure) ->
                    completedOn.set(Thread.currentThread().getName()));
            answering.start();
            assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("first");
            assertThat(watched.get(30, TimeUnit.SECONDS)).isEqualTo("second");
            assertThat(completedOn).hasValue("the cluster's thread");
        }
    }

    @Test
    void sendsInTurnKeepToOneSenderAndASendThatWouldQueueBehindABlockedOneGoesToThePool() throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 3)) {
            Set<String> senders = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 50; i++) {
                String answer = calls.<String>send(sent -> {
                    senders.add(Thread.currentThread().getName());
                    sent.complete("sent");
                }).get(30, TimeUnit.SECONDS);
                assertThat(answer).isEqualTo("sent");
            }
            // Not a thread of the pool in turn: each would send with cold buffers.
            assertThat(senders).hasSize(1);

            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            CompletableFuture<String> blocked = calls.send(sent -> {
                blocking.countDown();
                await(release);
                sent.complete("blocked");
            });
            await(blocking);
            // As many sends as may wait per sender wait for the blocked one; the next goes to a
            // thread of the pool.
            List<CompletableFuture<String>> waiting = new ArrayList<>();
            for (int i = 0; i < GridCalls.QUEUED_PER_THREAD; i++) {
                waiting.add(calls.send(sent -> sent.complete("waited")));
            }
            AtomicReference<String> nextOn = new AtomicReference<>();
            CompletableFuture<String> next = calls.send(sent -> {
                nextOn.set(Thread.currentThread().getName());
                sent.complete("next");
            });
            assertThat(next.get(30, TimeUnit.SECONDS)).isEqualTo("next");
            assertThat(nextOn.get()).isNotIn(senders);
            assertThat(blocked).isNotDone();
            assertThat(waiting).noneMatch(CompletableFuture::isDone);
            release.countDown();
            assertThat(blocked.get(30, TimeUnit.SECONDS)).isEqualTo("blocked");
            for (CompletableFuture<String> waited : waiting) {
                assertThat(waited.get(30, TimeUnit.SECONDS)).isEqualTo("waited");
            }
        }
    }

    @Test
    void aSendHandedOverAsTheSenderStartsToWaitIsNeverMissed() throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(10), 1)) {
            // One caller spins until each answer and hands the next send over at once, while the
            // sender goes back to wait: a send it missed would fail after the timeout.
            for (int i = 0; i < 50_000; i++) {
                int sent = i;
                CompletableFuture<Integer> answered = calls.send(answer -> answer.complete(sent));
                while (!answered.isDone()) {
                    Thread.onSpinWait();
                }
                assertThat(answered.join()).isEqualTo(sent);
            }
        }
    }

    @Test
    void closingStopsTheWaitingSender() throws Exception {
        GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1);
        Thread sender = calls.<Thread>send(answer -> answer.complete(Thread.currentThread())).get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (sender.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(sender.getState()).isEqualTo(Thread.State.WAITING);
        calls.close();
        sender.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(sender.isAlive()).isFalse();
    }

    @Test
    void aSendThatFailsOrAnswersLateIsAStoreFailure() {
        IllegalStateException failure = new IllegalStateException("member gone");
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofMillis(50), 1)) {
            assertThatThrownBy(() -> calls.<String>send(answer -> {
                throw failure;
            }).join()).cause().isInstanceOf(StoreUnavailableException.class).hasCause(failure);
            assertThatThrownBy(() -> calls.<String>send(answer -> {
            }).join()).cause().isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("did not answer within PT0.05S").cause().isInstanceOf(TimeoutException.class);
            calls.close();
            assertThatThrownBy(() -> calls.<String>send(answer -> answer.complete("never")).join()).cause()
                    .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
        }
    }

    /**
     * A call started on the caller's thread: what the caller chains runs on a thread of the pool,
     * never on the thread that received the answer (a cluster's), nor the one that made the call.
     */
    @Test
    void aStartedCallsAnswerIsHandedBackToAThreadOfThePool() throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            Thread caller = Thread.currentThread();
            CompletableFuture<String> onTheCluster = new CompletableFuture<>();
            AtomicReference<Thread> startedOn = new AtomicReference<>();
            CompletableFuture<Thread> chainedOn = calls.startAndHandBack(() -> {
                startedOn.set(Thread.currentThread());
                return onTheCluster;
            }).thenApply(answer -> Thread.currentThread());
            assertThat(startedOn.get()).isSameAs(caller);
            Thread cluster = new Thread(() -> onTheCluster.complete("answer"), "the cluster's thread");
            cluster.start();
            Thread chained = chainedOn.get(30, TimeUnit.SECONDS);
            assertThat(chained).isNotSameAs(cluster).isNotSameAs(caller);
            assertThat(chained.getName()).startsWith("sluice-grid-").doesNotContain("send");
        }
    }

    /** An answer received on a thread of the pool (a call made there) completes there: no second hand-off. */
    @Test
    void aStartedCallAnsweredOnThePoolCompletesOnThatThread() throws Exception {
        CountDownLatch chained = new CountDownLatch(1);
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 2)) {
            AtomicReference<Thread> madeOn = new AtomicReference<>();
            CompletableFuture<Thread> chainedOn = calls.startAndHandBack(() -> calls.call(() -> {
                madeOn.set(Thread.currentThread());
                // Answered once the stage is chained, so that whoever completes the call completes it.
                await(chained);
                return "answer";
            })).thenApply(answer -> Thread.currentThread());
            chained.countDown();
            assertThat(chainedOn.get(30, TimeUnit.SECONDS)).isSameAs(madeOn.get());
        }
    }

    /** An answer there before the start returned completes on the caller's thread: nothing to hand back. */
    @Test
    void aStartedCallAnsweredAtOnceCompletesOnTheCallersThread() {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            CompletableFuture<String> answer = calls.startAndHandBack(() -> CompletableFuture.completedFuture("now"));
            assertThat(answer).isCompletedWithValue("now");
        }
    }

    @Test
    void aStartedCallThatFailsThrowsOrAnswersLateIsAStoreFailure() {
        IllegalStateException failure = new IllegalStateException("member gone");
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofMillis(50), 1)) {
            assertThatThrownBy(calls.startAndHandBack(() -> CompletableFuture.failedFuture(failure))::join).cause()
                    .isInstanceOf(StoreUnavailableException.class).hasCause(failure);
            assertThatThrownBy(calls.startAndHandBack(() -> {
                throw failure;
            })::join).cause().isInstanceOf(StoreUnavailableException.class).hasCause(failure);
            assertThatThrownBy(calls.startAndHandBack(CompletableFuture::new)::join).cause()
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("the test cluster did not answer within PT0.05S")
                    .cause().isInstanceOf(TimeoutException.class);
            calls.close();
            AtomicBoolean started = new AtomicBoolean();
            assertThatThrownBy(calls.startAndHandBack(() -> {
                started.set(true);
                return new CompletableFuture<>();
            })::join).cause().isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
            assertThat(started).isFalse();
        }
    }

    @Test
    void settingsAreCheckedByName() {
        assertThatThrownBy(() -> new GridCalls("x", Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> new GridCalls("x", Duration.ofSeconds(1), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("concurrency");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
