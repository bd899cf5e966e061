package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.StoreUnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decisions on one key while a call for it is out: they wait, then go as one call decided in
 * their order; each keeps its own failure and timeout. The sender is a fake whose calls the test
 * answers by running them on an owner's state in this JVM.
 */
class SameKeyDecisionsTest {

    private static final long NOW = 1_764_000_000_000_000L;
    private static final List<Limit> LIMITS = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofHours(1)));

    /** A call the fake sender started: the key, the operation, the answer the test gives, and the thread that started it. */
    private record Sent(String key, GridOperation operation, CompletableFuture<long[]> answer, Thread thread) {
    }

    private final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    private final Map<String, byte[]> owned = new HashMap<>();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    private CompletableFuture<long[]> send(String key, GridOperation operation) {
        CompletableFuture<long[]> answer = new CompletableFuture<>();
        sent.add(new Sent(key, operation, answer, Thread.currentThread()));
        return answer;
    }

    /**
     * The fake sender, as a store whose calls start on the caller's thread (a Hazelcast member)
     * or, {@code onSendingThread}, as one whose calls the sending thread makes (Ignite).
     */
    private SameKeyDecisions.Sender sender(boolean onSendingThread) {
        return sender(onSendingThread, this::send);
    }

    private static SameKeyDecisions.Sender sender(boolean onSendingThread, SameKeyDecisions.Sender calls) {
        return new SameKeyDecisions.Sender() {
            @Override
            public CompletableFuture<long[]> start(String key, GridOperation operation) {
                return calls.start(key, operation);
            }

            @Override
            public boolean startsOnSendingThread() {
                return onSendingThread;
            }
        };
    }

    /** Answers {@code call} as its key's owner would, from the owner's state here. */
    private void answer(Sent call) {
        GridRequest.Outcome outcome = call.operation().run(owned.get(call.key()), () -> NOW);
        if (outcome.write()) {
            owned.put(call.key(), outcome.state());
        }
        call.answer().complete(outcome.reply());
    }

    private Sent nextSent() throws InterruptedException {
        Sent call = sent.poll(30, TimeUnit.SECONDS);
        assertThat(call).as("a call sent").isNotNull();
        return call;
    }

    private Future<Decision> decideOn(SameKeyDecisions decisions, String key, long cost) throws InterruptedException {
        return callers.submit(() ->
                GridReply.decode(decisions.decide(key, GridOperation.decide(LIMITS, cost, NOW)), LIMITS));
    }

    /** Submits a decision and returns once its thread waits (for a call out, or for its own answer). */
    private Future<Decision> waitingDecision(SameKeyDecisions decisions, String key, long cost,
                                             List<Thread> waiting) throws InterruptedException {
        int before = waiting.size();
        Future<Decision> decision = callers.submit(() -> {
            synchronized (waiting) {
                waiting.add(Thread.currentThread());
            }
            return GridReply.decode(decisions.decide(key, GridOperation.decide(LIMITS, cost, NOW)), LIMITS);
        });
        Thread thread;
        while (true) {
            synchronized (waiting) {
                if (waiting.size() > before) {
                    thread = waiting.get(before);
                    break;
                }
            }
            Thread.onSpinWait();
        }
        while (thread.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        return decision;
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void decisionsThatCameWhileACallWasOutGoTogetherAsOneCallDecidedInTheirOrder(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), SameKeyDecisions.GATHER);
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);
            Future<Decision> third = waitingDecision(decisions, "hot", 1, waiting);
            Future<Decision> elsewhere = waitingDecision(decisions, "cold", 1, waiting);
            Sent cold = nextSent();
            assertThat(cold.key()).isEqualTo("cold");
            assertThat(sent).as("nothing more sent while the hot key's call is out").isEmpty();

            answer(out);
            Sent batch = nextSent();
            assertThat(batch.key()).isEqualTo("hot");
            assertThat(batch.operation().request()[0]).isEqualTo(GridOperation.BATCH_FORMAT);
            answer(batch);
            answer(cold);

            KeyState reference = KeyState.empty();
            assertThat(first.get()).isEqualTo(reference.tryAcquire(LIMITS, NOW, 1));
            assertThat(second.get()).isEqualTo(reference.tryAcquire(LIMITS, NOW, 1));
            assertThat(third.get()).isEqualTo(reference.tryAcquire(LIMITS, NOW, 1));
            assertThat(third.get().allowed()).isFalse();
            assertThat(elsewhere.get().allowed()).isTrue();

            // The key has no call out any more: the next decision goes alone, at once.
            Future<Decision> after = decideOn(decisions, "hot", 1);
            Sent alone = nextSent();
            assertThat(alone.operation().request()[0]).isEqualTo(GridRequest.FORMAT_VERSION);
            answer(alone);
            assertThat(after.get().allowed()).isFalse();
        }
    }

    /** The decisions {@code call} carries: its reply's length over a decision's. */
    private int decisionsIn(Sent call) {
        return call.operation().run(null, () -> NOW).reply().length / GridReply.LENGTH;
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void theBatchAfterAnAnswerGathersTheDecisionsItWokeAndGoesOnceTheyJoined(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), Duration.ofHours(1));
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);
            answer(out);
            assertThat(first.get().allowed()).isTrue();
            assertThat(sent).as("the waiting decision waits for the one the answer woke").isEmpty();

            Future<Decision> third = decideOn(decisions, "hot", 1);
            Sent batch = nextSent();
            assertThat(batch.operation().request()[0]).isEqualTo(GridOperation.BATCH_FORMAT);
            assertThat(decisionsIn(batch)).isEqualTo(2);
            // The sending thread that gathers sends it; else the decision that filled it does.
            assertThat(fromSendingThread(batch)).as("sent by %s", batch.thread().getName()).isEqualTo(onSendingThread);
            answer(batch);
            // In their order: the second takes the limit's last permit, the third is denied.
            assertThat(second.get().allowed()).isTrue();
            assertThat(third.get().allowed()).isFalse();
            assertThat(sent).isEmpty();
        }
    }

    /** Whether {@code call} was started by the sending thread of a {@link GridCalls}, not a caller's. */
    private static boolean fromSendingThread(Sent call) {
        return call.thread().getName().matches("sluice-grid-\\d+-send-\\d+");
    }

    @Test
    void aGatherIsGivenBackToTheCallersWhileOtherSendsWaitForTheSendingThread() throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(true), Duration.ofHours(1));
            List<Thread> waiting = new ArrayList<>();
            // The sending thread busy, the gather's task waits behind it, and another send behind that.
            Future<Decision> first = waitingDecision(decisions, "other", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "other", 1, waiting);
            CountDownLatch sending = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<String> busy = calls.send(sent -> {
                sending.countDown();
                try {
                    sent.complete(release.await(30, TimeUnit.SECONDS) ? "released" : "late");
                } catch (InterruptedException e) {
                    sent.completeExceptionally(e);
                }
            });
            sending.await();
            answer(out);
            assertThat(first.get().allowed()).isTrue();
            CompletableFuture<String> behind = calls.send(sent -> sent.complete("sent after the gather's task"));
            release.countDown();
            assertThat(busy.get()).isEqualTo("released");
            assertThat(behind.get()).isEqualTo("sent after the gather's task");
            assertThat(sent).as("the gather given back, not ended").isEmpty();

            // Given back to the callers: the decision that fills the batch sends it.
            Future<Decision> third = decideOn(decisions, "other", 1);
            Sent given = nextSent();
            assertThat(decisionsIn(given)).isEqualTo(2);
            assertThat(fromSendingThread(given)).as("sent by %s", given.thread().getName()).isFalse();
            answer(given);
            assertThat(second.get().allowed()).isTrue();
            assertThat(third.get().allowed()).isFalse();
            assertThat(sent).isEmpty();
        }
    }

    /** Submits {@code count} decisions on one thread, one after the other; its thread joins {@code threads}. */
    private Future<?> decisionsInTurn(SameKeyDecisions decisions, int count, List<Thread> threads) {
        return callers.submit(() -> {
            synchronized (threads) {
                threads.add(Thread.currentThread());
            }
            for (int i = 0; i < count; i++) {
                decisions.decide("hot", GridOperation.decide(LIMITS, 1, NOW));
            }
            return null;
        });
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void decisionsBackFromABatchNobodyWaitedForGoTogetherAsTheNextBatch(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), Duration.ofHours(1));
            List<Thread> threads = new ArrayList<>();
            Future<?> one = decisionsInTurn(decisions, 3, threads);
            Sent alone = nextSent();
            Future<?> other = decisionsInTurn(decisions, 2, threads);
            while (true) {
                synchronized (threads) {
                    if (threads.size() == 2 && threads.get(1).getState() == Thread.State.TIMED_WAITING) {
                        break;
                    }
                }
                Thread.onSpinWait();
            }
            // The other thread's first decision waited for the lone call; the answer woke the first
            // thread, whose second decision joined it: one batch of two.
            answer(alone);
            Sent pair = nextSent();
            assertThat(decisionsIn(pair)).isEqualTo(2);
            answer(pair);
            // Nobody waited for the pair: its two decisions, back, find no call out and go together again.
            Sent again = nextSent();
            assertThat(again.operation().request()[0]).isEqualTo(GridOperation.BATCH_FORMAT);
            assertThat(decisionsIn(again)).isEqualTo(2);
            answer(again);
            one.get();
            other.get();
            assertThat(sent).isEmpty();
        }
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void aGatherEndsAtItsTimeWhenTheDecisionsItWokeDoNotComeBack(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(60), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), Duration.ofMillis(50));
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);
            answer(out);
            assertThat(first.get().allowed()).isTrue();

            // Well before its own timeout of 60 s: the gather's 50 ms, however long the machine takes;
            // ended and sent by the sending thread when it gathers, else by the waiting caller.
            Sent late = nextSent();
            assertThat(late.operation().request()[0]).isEqualTo(GridRequest.FORMAT_VERSION);
            assertThat(fromSendingThread(late)).as("sent by %s", late.thread().getName()).isEqualTo(onSendingThread);
            answer(late);
            assertThat(second.get().allowed()).isTrue();
        }
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void aGatheringDecisionThatGivesUpIsNeverSentAndTheOthersGoAtOnce(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), Duration.ofHours(1));
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);
            Future<Decision> third = waitingDecision(decisions, "hot", 1, waiting);
            answer(out);
            assertThat(first.get().allowed()).isTrue();
            assertThat(sent).isEmpty();

            waiting.get(1).interrupt();
            assertThatThrownBy(second::get).cause().isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(InterruptedException.class);
            Sent rest = nextSent();
            assertThat(rest.operation().request()[0]).isEqualTo(GridRequest.FORMAT_VERSION);
            answer(rest);
            // The second charged nothing: the limit of 2 still admits the third.
            assertThat(third.get().allowed()).isTrue();
        }
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void aFailedBatchFailsEachOfItsDecisionsWithItsCause(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), SameKeyDecisions.GATHER);
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);
            Future<Decision> third = waitingDecision(decisions, "hot", 1, waiting);
            answer(out);
            nextSent().answer().completeExceptionally(new IOException("the owner left"));

            assertThat(first.get().allowed()).isTrue();
            for (Future<Decision> failed : List.of(second, third)) {
                assertThatThrownBy(failed::get).cause().isInstanceOf(StoreUnavailableException.class)
                        .hasMessageContaining("the test cluster failed").cause().isInstanceOf(IOException.class);
            }
        }
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void aCallThatNeverAnswersHoldsTheKeyOnlyUntilItsWaitersTimeOut(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofMillis(200), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), SameKeyDecisions.GATHER);
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);

            // The second went once the first gave up (or gave up itself first): it waited no longer than its timeout.
            for (Future<Decision> late : List.of(first, second)) {
                assertThatThrownBy(late::get).cause().isInstanceOf(StoreUnavailableException.class)
                        .hasMessageContaining("did not answer within").cause().isInstanceOf(TimeoutException.class);
            }
            sent.clear();
            Future<Decision> after = decideOn(decisions, "hot", 1);
            answer(nextSent());
            assertThat(after.get().allowed()).isTrue();
        }
    }

    @Test
    void aClosedStoreSendsNothing() {
        GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1);
        SameKeyDecisions decisions = new SameKeyDecisions(calls, this::send, SameKeyDecisions.GATHER);
        calls.close();
        assertThatThrownBy(() -> decisions.decide("hot", GridOperation.decide(LIMITS, 1, NOW)))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
        assertThat(sent).isEmpty();
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void aDecisionInterruptedBeforeItsBatchWentIsNeverSent(boolean onSendingThread) throws Exception {
        try (GridCalls calls = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(calls, sender(onSendingThread), SameKeyDecisions.GATHER);
            List<Thread> waiting = new ArrayList<>();
            Future<Decision> first = waitingDecision(decisions, "hot", 1, waiting);
            Sent out = nextSent();
            Future<Decision> second = waitingDecision(decisions, "hot", 1, waiting);
            waiting.get(1).interrupt();
            assertThatThrownBy(second::get).cause().isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(InterruptedException.class);

            answer(out);
            assertThat(first.get().allowed()).isTrue();
            Future<Decision> third = decideOn(decisions, "hot", 1);
            Sent alone = nextSent();
            answer(alone);
            // The interrupted decision charged nothing: the limit of 2 still admits the third.
            assertThat(third.get().allowed()).isTrue();
            assertThat(sent).isEmpty();
        }
    }

    @ParameterizedTest(name = "sent from the sending thread: {0}")
    @ValueSource(booleans = {false, true})
    void manyThreadsOnOneKeyAdmitExactlyTheLimit(boolean onSendingThread) throws Exception {
        int threads = 8;
        int each = 200;
        long permits = 500;
        List<Limit> limits = List.of(Limit.of(Algorithms.TOKEN_BUCKET, permits, Duration.ofHours(1)));
        ExecutorService owner = Executors.newSingleThreadExecutor();
        try (GridCalls grid = new GridCalls("the test cluster", Duration.ofSeconds(30), 1)) {
            SameKeyDecisions decisions = new SameKeyDecisions(grid, sender(onSendingThread, (key, operation) ->
                    CompletableFuture.supplyAsync(() -> {
                        GridRequest.Outcome outcome = operation.run(owned.get(key), () -> NOW);
                        if (outcome.write()) {
                            owned.put(key, outcome.state());
                        }
                        return outcome.reply();
                    }, owner)), SameKeyDecisions.GATHER);
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                admitted.add(callers.submit(() -> {
                    int count = 0;
                    for (int i = 0; i < each; i++) {
                        long[] reply = decisions.decide("hot", GridOperation.decide(limits, 1, NOW));
                        count += GridReply.decode(reply, limits).allowed() ? 1 : 0;
                    }
                    return count;
                }));
            }
            int total = 0;
            for (Future<Integer> count : admitted) {
                total += count.get();
            }
            assertThat(total).isEqualTo(permits);
        } finally {
            owner.shutdownNow();
        }
    }
}
