package io.sluice.simulator;

/** Writes a command's results as they come: a table for people, or JSON for programs. */
interface Report {

    /** Before the first fleet: {@code first} has the settings every fleet shares. */
    void begin(SimulationSettings first);

    /** Before the rows of a fleet. */
    void beginFleet(SimulationSettings fleet);

    /** One algorithm's result on the fleet. */
    void row(SimulationSettings fleet, SimulationResult result);

    /** After the rows of a fleet. */
    void endFleet(SimulationSettings fleet);

    /** After the last fleet. */
    void end();
}
