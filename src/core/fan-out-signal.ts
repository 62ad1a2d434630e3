// One caller's abort handed to the many checks of a run at once, without Node's listener-leak
// warning and without leaving a listener on the caller's signal when the run is over.
import { setMaxListeners } from "node:events";

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
