// CPU time instead of wall-clock time for the ReDoS bars: catastrophic backtracking burns CPU in
// this process, while a busy machine only makes the wall clock run on without it.

/** Runs `work` and returns its result with the CPU milliseconds (user + system) this process spent on it. */
export function withCpuMs<T>(work: () => T): { result: T; cpuMs: number } {
  const before = process.cpuUsage();
  const result = work();
  const spent = process.cpuUsage(before);
  return { result, cpuMs: (spent.user + spent.system) / 1000 };
}
