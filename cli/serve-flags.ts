// The two interrupts of `little-canary serve` (the first drains, the second cuts the drain
// short). Imported only when serve runs; the flags themselves and their parsers are in serve-args.ts.
import type { StopSignals } from "../src/verbs/serve.js";
import type { CliIo } from "./io.js";

/** Resolves `stop` once the first SIGINT/SIGTERM arrives; `force` on the next one. */
export function waitForSignals(io: CliIo): StopSignals {
  let count = 0;
  let wakeFirst: () => void = () => {};
  let wakeSecond: () => void = () => {};
  const stop = new Promise<void>((resolve) => (wakeFirst = resolve));
  const force = new Promise<void>((resolve) => (wakeSecond = resolve));
  const dispose = io.onSignal(() => {
    count++;
    if (count === 1) wakeFirst();
    else wakeSecond();
  });
  return { stop, force, dispose };
}
