package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import net.jqwik.api.lifecycle.AfterContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** The kit passes a correct store and catches each flaw in the test that is about it. */
class StoreConformanceTest {

    private static final List<String> ALL_TESTS = List.of(
            "singleLimitDecisionsMatchTheReferenceModel",
            "multiLimitDecisionsMatchTheReferenceModel",
            "concurrentRequestsOnOneKeyAdmitExactlyTheCapacityUnderAFrozenClock",
            "concurrentRequestsOnOneKeyAdmitExactlyTheCapacityOnTheStoresOwnClock",
            "concurrentMultiLimitRequestsChargeAllOrNone",
            "aDeniedRequestChargesNoneOfItsLimits",
            "aDeniedRequestOnAnUnusedKeyStoresNothing",
            "distinctKeysHaveDistinctStates",
            "aClockGoingBackRefillsNothing",
            "aChangedLimitReadsTheStateItsNameHolds",
            "stateExpiresOnceItsLimitIsFullyReset",
            "badRequestsGetTheDocumentedExceptions",
            "badLimitsAreRejectedWhenCreated",
            "statesItsCapabilities");

    @TempDir
    Path jqwikDatabase;

    @Test
    void aCorrectStorePassesEveryTest() {
        Outcome outcome = run(CorrectStore.class);
        assertThat(outcome.passed()).containsExactlyInAnyOrderElementsOf(ALL_TESTS);
        assertThat(outcome.failed()).isEmpty();
        // Both stores were closed before the subclass's @AfterContainer, where a server may stop.
        assertThat(CorrectStore.closedBeforeAfterContainer).containsExactly(true, true);
    }

    @Test
    void chargingOnDenialIsCaught() {
        assertThat(run(ChargesOnDenial.class).failed()).contains(
                "multiLimitDecisionsMatchTheReferenceModel",
                "aDeniedRequestChargesNoneOfItsLimits",
                "concurrentMultiLimitRequestsChargeAllOrNone");
    }

    @Test
    void aReadModifyWriteRaceIsCaught() {
        assertThat(run(Racy.class).failed()).contains(
                "concurrentRequestsOnOneKeyAdmitExactlyTheCapacityUnderAFrozenClock",
                "concurrentRequestsOnOneKeyAdmitExactlyTheCapacityOnTheStoresOwnClock");
    }

    @Test
    void expiringTooEarlyIsCaught() {
        assertThat(run(ForgetsEarly.class).failed()).contains(
                "singleLimitDecisionsMatchTheReferenceModel",
                "multiLimitDecisionsMatchTheReferenceModel");
    }

    @Test
    void ignoringTheClockOverrideIsCaught() {
        assertThat(run(IgnoresTheVirtualClock.class).failed()).contains(
                "singleLimitDecisionsMatchTheReferenceModel",
                "stateExpiresOnceItsLimitIsFullyReset");
    }

    private record Outcome(Set<String> passed, Set<String> failed) {
    }

    private Outcome run(Class<? extends StoreConformance> kit) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(kit))
                .configurationParameter("jqwik.database", jqwikDatabase.resolve("db").toString())
                .configurationParameter("jqwik.shrinking.default", "OFF")
                .configurationParameter("jqwik.reporting.onlyfailures", "true")
                .build();
        Set<String> passed = ConcurrentHashMap.newKeySet();
        Set<String> failed = ConcurrentHashMap.newKeySet();
        LauncherFactory.create().execute(request, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (test.isTest()) {
                    String name = test.getDisplayName();
                    (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? passed : failed).add(name);
                }
            }
        });
        return new Outcome(passed, failed);
    }

    // The kits under test: static nested classes, which the build's own test run leaves out.

    static class CorrectStore extends StoreConformance {
        private static final List<MapStore> created = new CopyOnWriteArrayList<>();
        static volatile List<Boolean> closedBeforeAfterContainer = List.of();

        @Override
        protected Store createStore(VirtualClock clock) {
            return remember(new MapStore(clock, MapStore.Flaw.NONE));
        }

        @Override
        protected Store createStore() {
            return remember(new MapStore(TimeSource.system(), MapStore.Flaw.NONE));
        }

        private static MapStore remember(MapStore store) {
            created.add(store);
            return store;
        }

        @AfterContainer
        static void stopServer() {
            closedBeforeAfterContainer = created.stream().map(MapStore::isClosed).toList();
        }
    }

    static class ChargesOnDenial extends StoreConformance {
        @Override
        protected Store createStore(VirtualClock clock) {
            return new MapStore(clock, MapStore.Flaw.CHARGES_ON_DENIAL);
        }

        @Override
        protected Store createStore() {
            return new MapStore(TimeSource.system(), MapStore.Flaw.CHARGES_ON_DENIAL);
        }
    }

    static class Racy extends StoreConformance {
        @Override
        protected Store createStore(VirtualClock clock) {
            return new MapStore(clock, MapStore.Flaw.RACY);
        }

        @Override
        protected Store createStore() {
            return new MapStore(TimeSource.system(), MapStore.Flaw.RACY);
        }
    }

    static class ForgetsEarly extends StoreConformance {
        @Override
        protected Store createStore(VirtualClock clock) {
            return new MapStore(clock, MapStore.Flaw.FORGETS_EARLY);
        }

        @Override
        protected Store createStore() {
            return new MapStore(TimeSource.system(), MapStore.Flaw.FORGETS_EARLY);
        }
    }

    static class IgnoresTheVirtualClock extends StoreConformance {
        @Override
        protected Store createStore(VirtualClock clock) {
            return new MapStore(TimeSource.system(), MapStore.Flaw.NONE);
        }

        @Override
        protected Store createStore() {
            return new MapStore(TimeSource.system(), MapStore.Flaw.NONE);
        }
    }
}
