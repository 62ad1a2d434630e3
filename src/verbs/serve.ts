// `serve`, the verb behind `little-canary serve`: the settings resolved once, then `runService`
// until the stop signal and a drain. The logs go to the reporter's `write`, never request text.
import { streamAccessLog, streamLog } from "../server/access-log.js";
import { runService } from "../server/run-service.js";
import { readServeToken } from "../server/bearer-token.js";
import { resolveCanarySettings, type CanarySettings } from "./canary-settings.js";
import type { VerbIo } from "./reporter.js";

export { ServerBindError } from "../server/lifecycle.js";

/** When the service stops: `stop` begins the drain, `force` cuts it short; `dispose` is called once the service is down. */
export interface StopSignals {
  readonly stop: Promise<void>;
  readonly force: Promise<void>;
  readonly dispose: () => void;
}

/** The settings of the service, as plain values. */
export interface ServeOptions extends CanarySettings {
  /** On 127.0.0.1; 0: any free port. */
  port: number;
  maxConcurrent: number;
  maxQueue: number;
  /** Seconds for a client's body. */
  readTimeout: number;
  maxConnections: number;
  /** Browser origins answered with CORS headers. */
  allowOrigin?: string[];
  /** One JSON line per request on the reporter. */
  accessLog?: boolean;
  /** A file holding the bearer token `/check` and `/screen` require (mode 0600, at least 16 characters; see docs/serve.md). */
  tokenFile?: string;
  readonly io: VerbIo;
  /** Called once the settings are valid, before the service starts. */
  readonly stopSignals: () => StopSignals;
}

/**
 * Runs the service until `stop` and a drain; resolves with the requests left unanswered when
 * `force` cut the drain short (0 after a full drain). Throws ServerBindError when the port cannot be bound.
 */
export async function serve(options: ServeOptions): Promise<number> {
  const { io } = options;
  const write = { write: io.reporter.write };
  // Read once, before anything starts: a refused file stops the start (exit 2), naming the rule only.
  const token = options.tokenFile === undefined ? undefined : await readServeToken(options.tokenFile);
  const plan = Object.freeze({
    // One embedded-canary sequence per request served at once.
    pipeline: resolveCanarySettings({ ...options, concurrency: options.maxConcurrent }, { ...io, warn: io.reporter.warn }),
    service: Object.freeze({
      maxConcurrent: options.maxConcurrent,
      maxQueue: options.maxQueue,
      readTimeoutMs: Math.max(1, Math.round(options.readTimeout * 1000)),
      maxConnections: options.maxConnections,
      allowOrigins: options.allowOrigin ?? [],
      ...(options.accessLog === true ? { accessLog: streamAccessLog(write) } : {}),
      ...(token === undefined ? {} : { token }),
    }),
    port: options.port,
  });
  const signals = options.stopSignals();
  try {
    return await runService({ ...plan, log: streamLog(write), stop: signals.stop, force: signals.force });
  } finally {
    signals.dispose();
  }
}
