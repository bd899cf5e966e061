package io.sluice.testkit;

import io.sluice.api.Limit;
import java.util.List;

/**
 * One generated try of the model-based properties: requests on a few keys, all against
 * the same limits, with the virtual clock moved before each.
 *
 * @param limits the limits every request is checked against, with distinct names
 * @param keys how many distinct keys the requests use
 * @param startOffsetMicros where the try starts, after the kit's start instant, so that the
 *     steps fall at any phase of the epoch-aligned windows
 * @param steps the requests, in order
 */
record Scenario(List<Limit> limits, int keys, long startOffsetMicros, List<Step> steps) {

    /**
     * One request.
     *
     * @param advanceMicros how far the virtual clock moves before it
     * @param key which of the scenario's keys it uses, from 0
     * @param cost its cost
     */
    record Step(long advanceMicros, int key, long cost) {
    }
}
