package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The window and the queue of {@link DecisionBatcher}, with a sender that only records what it was given. */
class DecisionBatcherTest {

    private final List<List<CompletableFuture<Void>>> sent = new ArrayList<>();

    private DecisionBatcher<CompletableFuture<Void>> batcher(int window, int largest) {
        return new DecisionBatcher<>(window, largest, sent::add);
    }

    private static List<CompletableFuture<Void>> calls(int count) {
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            calls.add(new CompletableFuture<>());
        }
        return calls;
    }

    @Test
    void aCallIsSentAtOnceWhileTheWindowHasRoom() {
        DecisionBatcher<CompletableFuture<Void>> batcher = batcher(2, 64);
        List<CompletableFuture<Void>> calls = calls(3);
        batcher.submit(calls.get(0));
        batcher.submit(calls.get(1));
        assertThat(sent).containsExactly(List.of(calls.get(0)), List.of(calls.get(1)));
        batcher.submit(calls.get(2));
        assertThat(sent).as("the third waits for a completion").hasSize(2);
    }

    @Test
    void aLoneCallerIsNeverQueued() {
        DecisionBatcher<CompletableFuture<Void>> batcher = batcher(1, 64);
        List<CompletableFuture<Void>> calls = calls(3);
        for (CompletableFuture<Void> call : calls) {
            batcher.submit(call);
            batcher.completed();
        }
        assertThat(sent).containsExactly(List.of(calls.get(0)), List.of(calls.get(1)), List.of(calls.get(2)));
    }

    @Test
    void theCallsQueuedGoTogetherInOrderWhenACommandCompletes() {
        DecisionBatcher<CompletableFuture<Void>> batcher = batcher(1, 64);
        List<CompletableFuture<Void>> calls = calls(4);
        calls.forEach(batcher::submit);
        assertThat(sent).containsExactly(List.of(calls.get(0)));
        batcher.completed();
        assertThat(sent).containsExactly(List.of(calls.get(0)), calls.subList(1, 4));
        batcher.completed();
        assertThat(sent).as("nothing waited: the slot frees").hasSize(2);
        CompletableFuture<Void> next = new CompletableFuture<>();
        batcher.submit(next);
        assertThat(sent).last().isEqualTo(List.of(next));
    }

    @Test
    void aBatchCarriesAtMostTheLargestAndTheRestWaitsForTheNextCompletion() {
        DecisionBatcher<CompletableFuture<Void>> batcher = batcher(1, 2);
        List<CompletableFuture<Void>> calls = calls(6);
        calls.forEach(batcher::submit);
        batcher.completed();
        batcher.completed();
        batcher.completed();
        assertThat(sent).containsExactly(List.of(calls.get(0)), calls.subList(1, 3), calls.subList(3, 5),
                calls.subList(5, 6));
    }

    @Test
    void aCallDoneWhileQueuedIsNeverSent() {
        DecisionBatcher<CompletableFuture<Void>> batcher = batcher(1, 64);
        List<CompletableFuture<Void>> calls = calls(4);
        calls.forEach(batcher::submit);
        calls.get(1).completeExceptionally(new IllegalStateException("timed out"));
        calls.get(3).completeExceptionally(new IllegalStateException("timed out"));
        batcher.completed();
        assertThat(sent).containsExactly(List.of(calls.get(0)), List.of(calls.get(2)));
    }

    @Test
    void whenEveryQueuedCallIsDoneTheSlotFrees() {
        DecisionBatcher<CompletableFuture<Void>> batcher = batcher(1, 64);
        List<CompletableFuture<Void>> calls = calls(2);
        calls.forEach(batcher::submit);
        calls.get(1).complete(null);
        batcher.completed();
        CompletableFuture<Void> next = new CompletableFuture<>();
        batcher.submit(next);
        assertThat(sent).containsExactly(List.of(calls.get(0)), List.of(next));
    }

    @Test
    void theWindowAndTheLargestBatchAreAtLeastOne() {
        assertThatThrownBy(() -> batcher(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batcher(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
