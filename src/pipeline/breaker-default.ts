// The breaker's default threshold on its own, so that a command's --help can name it without
// loading the breaker. circuit-breaker.ts re-exports it.

/** Consecutive unreachable/timeout failures that open the breaker unless a flag changes it. */
export const DEFAULT_MAX_CANARY_FAILURES = 5;
