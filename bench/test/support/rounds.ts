/** Rounds of one target at these CPU µs per call, each as fast as its CPU allows (calls/s follow). */
export const roundsAtCpu = (cpuMicros: number[]) => cpuMicros.map((cpuMicrosPerCall) => ({ callsPerSecond: 1e6 / cpuMicrosPerCall, cpuMicrosPerCall }));
