// The two interrupts of `little-canary serve` (the first drains, the second cuts the drain
// short). Imported only when serve runs; the flags themselves and their parsers are in serve-args.ts.
import type { StopSignals } from "../src/verbs/serve.js";
import type { CliIo } from "./io.js";

/**
 * Resolves `stop` once the first SIGINT/SIGTERM arrives; `force` on the next one, and `forcedBy`
 * then names it (its exit code is the command's when requests were left unanswered).
 */
export function waitForSignals(io: CliIo): StopSignals & { readonly forcedBy: () => NodeJS.Signals | null } {
  let count = 0;
  let second: NodeJS.Signals | null = null;
  let wakeFirst: () => void = () => {};
  let wakeSecond: () => void = () => {};
  const stop = new Promise<void>((resolve) => (wakeFirst = resolve));
  const force = new Promise<void>((resolve) => (wakeSecond = resolve));
  const dispose = io.onSignal((signal) => {
    count++;
    if (count === 1) wakeFirst();
    else {
      second ??= signal;
      wakeSecond();
    }
  });
  return { stop, force, dispose, forcedBy: () => second };
}
