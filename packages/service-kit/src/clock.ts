/** Time as a dependency: handlers, stores and workers take a clock, so tests can move it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
