// Waiting on work that may take long (a canary call at its whole timeout, a terminal read) for a
// caller that can be stopped: an abort rejects the wait at once and the late outcome is dropped.
// The abort listener lives only while the one wait does: a race against one long-lived promise
// would keep everything ever awaited reachable from that promise's reactions.

/**
 * `work`, or a rejection with `reason()` (default: the signal's reason) as soon as `signal`
 * aborts; a late outcome of `work`, a failure too, is dropped.
 */
export function orAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, reason: () => unknown = () => signal?.reason): Promise<T> {
  if (signal === undefined) return work;
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(reason());
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(reason());
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
