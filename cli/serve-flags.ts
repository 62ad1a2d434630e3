// The flags of `little-canary serve`: their parsers, the `runService` options they ask for, and
// the two interrupts (the first drains, the second cuts the drain short).
import { InvalidArgumentError } from "commander";
import { normalizeAllowedOrigin } from "../src/server/caller-origin.js";
import { streamAccessLog } from "../src/server/access-log.js";
import type { RunServiceOptions } from "../src/server/run-service.js";
import type { CliIo } from "./io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "./options.js";

export interface ServeFlags extends CanaryFlags {
  port: number;
  maxConcurrent: number;
  maxQueue: number;
  readTimeout: number;
  maxConnections: number;
  /** Absent when the flag was not given. */
  allowOrigin?: string[];
  /** `--access-log`: one JSON line per request on stderr. */
  accessLog?: boolean;
}

/** `--allow-origin` (repeatable): each value an http(s) origin, kept in normalised form. */
export function allowOriginArg(raw: string, previous: string[] = []): string[] {
  const origin = normalizeAllowedOrigin(raw);
  if (origin === null) {
    throw new InvalidArgumentError("must be an http(s) origin such as http://localhost:3000 (no path, query or user info)");
  }
  return previous.includes(origin) ? previous : [...previous, origin];
}

/** `--port`: an integer 0..65535 (0 = a port chosen by the OS). */
export function portArg(raw: string): number {
  const text = raw.trim();
  if (!/^[+-]?\d{1,12}$/.test(text)) {
    throw new InvalidArgumentError(`invalid port: '${raw.slice(0, 40)}' is not an integer`);
  }
  const port = Number(text);
  if (port < 0 || port > 65535) throw new InvalidArgumentError(`invalid port: ${port} is outside the valid range 0..65535`);
  return port;
}

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
