// Waiting on work that may take long (a canary call at its whole timeout, a terminal read) for a
// caller that can be stopped: an abort rejects the wait at once and the late outcome is dropped.
// The abort listener lives only while the one wait does: a race against one long-lived promise
// would keep everything ever awaited reachable from that promise's reactions.
import { setMaxListeners } from "node:events";

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

/**
 * A signal that aborts with `signal`, for many waits at once on one caller's abort (every check in
 * flight of a run listens to it): the caller's signal gets one listener, and this one has no
 * listener limit. Node warns of a leak past 10 listeners on one signal, and a run at
 * `--concurrency 32` has 32 checks listening. `release` removes the one listener once the run's
 * waits are over, so a caller's long-lived signal given to run after run keeps none of them.
 */
export function fanOutSignal(signal: AbortSignal): { readonly signal: AbortSignal; readonly release: () => void } {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const forward = (): void => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener("abort", forward) };
}
