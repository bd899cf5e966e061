package io.sluice.store.redis;

import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** What the scripts' differential tests share: a {@link ScriptRig} of the test class's own. */
abstract class ScriptDifferential {

    /** The running test class's rig: started before its tries, closed after them. */
    static ScriptRig rig;

    @BeforeContainer
    static void startRig() {
        // Assigned before it starts, so that closeRig closes what a failed start opened.
        rig = new ScriptRig();
        rig.start();
    }

    @AfterContainer
    static void closeRig() {
        rig.close();
    }
}
