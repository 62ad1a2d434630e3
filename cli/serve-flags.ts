// What the flags of `little-canary serve` ask for: the `runService` options, and the two
// interrupts (the first drains, the second cuts the drain short). Imported only when serve runs;
// the flags themselves and their parsers are in serve-args.ts.
import { streamAccessLog } from "../src/server/access-log.js";
import type { RunServiceOptions } from "../src/server/run-service.js";
import type { CliIo } from "./io.js";
import { pipelineOptionsFromFlags } from "./options.js";
import type { ServeFlags } from "./serve-args.js";

/** Resolves once the first SIGINT/SIGTERM arrives; `second` resolves on the next one. */
export function waitForSignals(io: CliIo): { first: Promise<void>; second: Promise<void>; dispose: () => void } {
  let count = 0;
  let wakeFirst: () => void = () => {};
  let wakeSecond: () => void = () => {};
  const first = new Promise<void>((resolve) => (wakeFirst = resolve));
  const second = new Promise<void>((resolve) => (wakeSecond = resolve));
  const dispose = io.onSignal(() => {
    count++;
    if (count === 1) wakeFirst();
    else wakeSecond();
  });
  return { first, second, dispose };
}

/** The `runService` options the flags ask for, apart from the log and the stop signals. */
export function serviceOptionsFromFlags(flags: ServeFlags, io: CliIo): Pick<RunServiceOptions, "pipeline" | "service" | "port"> {
  return {
    // One embedded-canary sequence per request served at once.
    pipeline: pipelineOptionsFromFlags({ ...flags, concurrency: flags.maxConcurrent }, io),
    service: {
      maxConcurrent: flags.maxConcurrent,
      maxQueue: flags.maxQueue,
      readTimeoutMs: Math.max(1, Math.round(flags.readTimeout * 1000)),
      maxConnections: flags.maxConnections,
      allowOrigins: flags.allowOrigin ?? [],
      ...(flags.accessLog === true ? { accessLog: streamAccessLog(io.stderr) } : {}),
    },
    port: flags.port,
  };
}
