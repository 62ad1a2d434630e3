// The loopback screening service as a Node `http.Server`: `GET /health`, `GET /ready`, `POST /check`
// and `POST /screen` (through the one screen path, src/screen/), behind the request ladder
// (check-request.ts), an optional bearer token, a bounded queue and header and body deadlines; a JSON
// body for every answer and a health report that never waits on the canary (binding and shutdown:
// lifecycle.ts). A check that throws is a fixed 503 and one log line naming the error class;
// request text, verdicts and exception messages are never logged.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { errorClassName } from "../core/errors.js";
import { MAX_TIMER_MS } from "../canary/timeout.js";
import { pendingHealthReport, type HealthReport } from "../pipeline/health.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { batchState } from "../screen/batch-state.js";
import { screenBatch, serializeBatch } from "../screen/screen-batch.js";
import { authorize, bearerToken, type BearerToken } from "./bearer-token.js";
import { loggedCoverage, loggedMethod, loggedRoute, silentLog, type AccessLog, type AccessLogEntry, type ServerLog } from "./access-log.js";
import { normalizeAllowedOrigin } from "./allowed-origin.js";
import { admitCaller, corsHeaders, originFormTarget, preflightHeaders } from "./caller-origin.js";
import { checkHeaders, headFromRaw, isReply, parseCheckBody, parseRawHead, parseScreenBody, routeMethod, routeRequest, type RawHead } from "./check-request.js";
import { ConnectionLimiter } from "./connection-limiter.js";
import { REPLIES, sendReply, writeRawReply, type Reply } from "./json-reply.js";
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HEALTH_TTL_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_QUEUE,
  DEFAULT_READ_TIMEOUT_MS,
  RETRY_AFTER_SECONDS,
} from "./limits.js";
import { readUntilSettled } from "../core/read-until-settled.js";
import { orAbort } from "../core/or-abort.js";

type Admission<T> =
  | { readonly kind: "done"; readonly value: T }
  | { readonly kind: "failed"; readonly error: unknown }
  | { readonly kind: "full" }
  | { readonly kind: "cancelled" };

/**
 * A bounded gate in front of the pipeline, so a burst cannot exhaust memory or the backend: at most
 * `maxConcurrent` checks run and `maxQueue` wait in arrival order; beyond that a request is told at
 * once that the server is busy. A waiter whose client left is dropped before it costs a call.
 */
class CheckQueue {
  #active = 0;
  /** Each waiter's start, in arrival order. */
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly maxConcurrent: number,
    readonly maxQueue: number,
  ) {}

  /** Checks running and waiting, and the limits (`/health` reports them as `queue`). */
  state() {
    return { active: this.#active, queued: this.#waiting.length, max_concurrent: this.maxConcurrent, max_queue: this.maxQueue };
  }

  /**
   * Runs `task` when a slot is free. `abandoned` resolves if the client goes away; a task that has
   * not started by then is skipped ("cancelled"), one that has started runs to completion.
   */
  async run<T>(task: () => Promise<T>, abandoned?: Promise<void>): Promise<Admission<T>> {
    if (this.#active >= this.maxConcurrent) {
      if (this.#waiting.length >= this.maxQueue) return { kind: "full" };
      const started = await new Promise<boolean>((resolve) => {
        const start = (): void => resolve(true);
        this.#waiting.push(start);
        void abandoned?.then(() => {
          const index = this.#waiting.indexOf(start);
          if (index >= 0) {
            this.#waiting.splice(index, 1);
            resolve(false);
          }
        });
      });
      if (!started) return { kind: "cancelled" };
    } else {
      this.#active++;
    }
    try {
      return { kind: "done", value: await task() };
    } catch (error) {
      return { kind: "failed", error };
    } finally {
      this.#release();
    }
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so `active` never dips and lets a newcomer
    // overtake someone who queued earlier.
    if (next) next();
    else this.#active--;
  }
}

interface CachedHealth {
  /**
   * The readiness result, taken less than `ttlMs` ago; null before the first one exists or when
   * the last one is older than the reuse window (see `stale`).
   */
  readonly report: HealthReport | null;
  /** Milliseconds since the last result's check started, or null before the first one. */
  readonly ageMs: number | null;
  /** True when a result exists but is older than the reuse window and no fresher one came in time. */
  readonly stale: boolean;
}

/** How long `/health` waits for a refresh of a result older than its reuse window. */
const DEFAULT_STALE_WAIT_MS = 250;

interface HealthCacheOptions {
  /** Monotonic clock in milliseconds (tests). */
  readonly now?: () => number;
  /** Upper bound of the wait for a refresh when the cached result is too old (default 250 ms). */
  readonly staleWaitMs?: number;
}

/**
 * Readiness for `/health` without a long wait on the canary backend (a hanging probe must not make
 * the service look dead). The pipeline's health check runs at most once at a time; a result is
 * reused for `ttlMs` from when its check started, refreshed in the background at half that age.
 * An older result is never served as current: the caller waits up to `staleWaitMs` for the
 * refresh, else the report says stale and not ready. Before the first result it is never ready.
 */
export class HealthCache {
  readonly #pipeline: SecurityPipeline;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #staleWaitMs: number;
  #report: HealthReport | null = null;
  #takenAt = 0;
  #inFlight: Promise<HealthReport> | null = null;

  constructor(pipeline: SecurityPipeline, ttlMs: number, options: HealthCacheOptions = {}) {
    this.#pipeline = pipeline;
    this.#ttlMs = ttlMs;
    this.#now = options.now ?? (() => performance.now());
    this.#staleWaitMs = options.staleWaitMs ?? DEFAULT_STALE_WAIT_MS;
  }

  #age(): number | null {
    return this.#report === null ? null : Math.max(0, this.#now() - this.#takenAt);
  }

  #snapshot(): CachedHealth | null {
    const ageMs = this.#age();
    if (ageMs === null || ageMs >= this.#ttlMs) return null;
    // Refresh ahead of expiry so the next caller still finds a result inside the window.
    if (ageMs >= this.#ttlMs / 2) void this.refresh();
    return { report: this.#report, ageMs, stale: false };
  }

  /**
   * The readiness result to serve now. A result inside the reuse window is returned at once;
   * otherwise a refresh starts and is awaited for at most `staleWaitMs`.
   */
  async current(): Promise<CachedHealth> {
    const fresh = this.#snapshot();
    if (fresh !== null) return fresh;
    await orAbort(this.refresh(), AbortSignal.timeout(this.#staleWaitMs)).catch(() => undefined);
    const after = this.#snapshot();
    if (after !== null) return after;
    return { report: null, ageMs: this.#age(), stale: this.#report !== null };
  }

  /** One refresh (shared by concurrent callers). Never rejects: a throwing check is "not ready". */
  refresh(): Promise<HealthReport> {
    if (this.#inFlight) return this.#inFlight;
    const startedAt = this.#now();
    const run = (async () => {
      let report: HealthReport;
      try {
        report = await this.#pipeline.healthCheck();
      } catch {
        report = { ...pendingHealthReport(this.#pipeline, true), ready: false, degraded: true, status: "degraded" };
      }
      this.#report = report;
      this.#takenAt = startedAt;
      return report;
    })();
    this.#inFlight = run;
    void run.finally(() => {
      if (this.#inFlight === run) this.#inFlight = null;
    });
    return run;
  }
}

/** Options of `createServer`. */
export interface ServeOptions {
  /** Checks running at once (default 4). */
  readonly maxConcurrent?: number;
  /** Checks waiting for a slot before 503 + Retry-After (default 64). */
  readonly maxQueue?: number;
  /** Deadline for the body of a request, and for its headers when shorter than `headersTimeoutMs` (default 10 000 ms). */
  readonly readTimeoutMs?: number;
  /** Deadline for a request's headers (default: the smaller of 5000 ms and `readTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  /** How long a kept-alive connection may sit idle between requests (default 2000 ms). */
  readonly keepAliveTimeoutMs?: number;
  /** Age at which the cached readiness result is refreshed (default 5000 ms). */
  readonly healthTtlMs?: number;
  /** Longest wait of `/health` for a refresh of a result older than `healthTtlMs` (default 250 ms). */
  readonly healthStaleWaitMs?: number;
  /**
   * Open connections at once (default 256). At the cap a new connection is still accepted and
   * the oldest idle or stalled one is closed instead (see connection-limiter.ts).
   */
  readonly maxConnections?: number;
  /**
   * Origins (`scheme://host[:port]`) whose browser requests are answered, with CORS headers.
   * Requests with any other `Origin` are refused with 403 (the service's own loopback origin
   * is always accepted).
   */
  readonly allowOrigins?: readonly string[];
  /**
   * A bearer token the POST routes (`/check`, `/screen`) require in `Authorization: Bearer …`
   * (401 without it or with another one); `/health` and `/ready` stay open for probes. At least
   * 16 visible ASCII characters; held as its SHA-256 only, never logged. Off when absent.
   */
  readonly token?: string;
  readonly log?: ServerLog;
  /**
   * Receives one entry per request (method, route, status, verdict class, latency; never the
   * text, headers or query). Off when absent; `serve --access-log` writes them to stderr.
   */
  readonly accessLog?: AccessLog;
  /** Monotonic clock in milliseconds (tests). */
  readonly now?: () => number;
}

/** What lifecycle.ts and `/health` need to know about a running service. */
export interface ServiceControl {
  readonly pipeline: SecurityPipeline | null;
  readonly queue: CheckQueue;
  readonly connections: ConnectionLimiter;
  readonly health: HealthCache | null;
  readonly allowedOrigins: ReadonlySet<string>;
  readonly token: BearerToken | null;
  readonly log: ServerLog;
  readonly accessLog: AccessLog | null;
  readonly readTimeoutMs: number;
  /** What the access log says about a /check answered with a verdict. */
  readonly verdicts: WeakMap<ServerResponse, Pick<AccessLogEntry, "verdict" | "coverage">>;
  draining: boolean;
  activeRequests: number;
  readonly idleWaiters: Array<() => void>;
}

const controls = new WeakMap<Server, ServiceControl>();

/** The control block of a server made by createServer, or undefined for any other server. */
export function serviceControl(server: Server): ServiceControl | undefined {
  return controls.get(server);
}

function integerAtLeast(name: string, value: number, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be an integer ≥ ${min}`);
  return value;
}

/** A deadline in milliseconds: an integer from `min` to MAX_TIMER_MS. */
function timerMs(name: string, value: number, min = 1): number {
  if (integerAtLeast(name, value, min) > MAX_TIMER_MS) throw new RangeError(`${name} must be at most ${MAX_TIMER_MS} (about 24.8 days)`);
  return value;
}

async function healthBody(control: ServiceControl): Promise<Record<string, unknown>> {
  const pipeline = control.pipeline;
  if (pipeline === null || control.health === null) return { status: "degraded", ready: false, degraded: true, error: "not initialized" };
  const cached = await control.health.current();
  return {
    // A missing or too old result is never passed off as current readiness: the configuration
    // part is reported with ready:false (unless there is no backend to wait for).
    // A result that went stale with none newer means no check has finished recently: the check
    // itself could not finish, which `canary_check: "failed"` says (docs/serve.md).
    ...(cached.report ?? pendingHealthReport(pipeline, cached.stale)),
    // Integrations read these to see how the service will treat their requests.
    canary_timeout: pipeline.describe().canaryTimeout,
    health_checked: cached.ageMs !== null,
    health_stale: cached.stale,
    health_age_seconds: cached.ageMs === null ? null : Math.round(cached.ageMs) / 1000,
    queue: control.queue.state(),
  };
}

/**
 * Runs `task` in a check slot and answers what did not end in a value: 503 + Retry-After for a
 * full queue, nothing for a caller gone while queued, a fixed 503 and one log line for a failure.
 * `task` gets a signal aborted when the caller goes away; a task that stops on it (`stopsOnClose`)
 * is not logged as failed, as nobody is waiting for it. Resolves to the value, or null once answered.
 */
async function runQueued<T>(
  control: ServiceControl,
  res: ServerResponse,
  task: (gone: AbortSignal) => Promise<T>,
  stopsOnClose = false,
): Promise<{ readonly value: T } | null> {
  const gone = new AbortController();
  const abandoned = new Promise<void>((resolve) =>
    res.once("close", () => {
      gone.abort();
      resolve();
    }),
  );
  const outcome = await control.queue.run(() => task(gone.signal), abandoned);
  switch (outcome.kind) {
    case "full":
      sendReply(res, { ...REPLIES.busy, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } });
      return null;
    case "cancelled":
      return null;
    case "failed":
      if (!(stopsOnClose && gone.signal.aborted)) control.log("ERROR", `Pipeline check failed (${errorClassName(outcome.error)})`);
      sendReply(res, REPLIES.pipelineFailed);
      return null;
    case "done":
      return { value: outcome.value };
  }
}

/**
 * Reads exactly `declaredLength` body bytes of `req` within `timeoutMs`, so a client that announces
 * N bytes and sends fewer cannot hold a connection or a check slot; the buffer is sized from the
 * declared length (at most the route's limit) and nothing beyond it is kept. Resolves to the bytes,
 * "timeout", or "aborted" (the client went away, or sent a different number of bytes than it declared).
 */
function readBody(req: IncomingMessage, declaredLength: number, timeoutMs: number): Promise<Uint8Array | "timeout" | "aborted"> {
  const buffer = Buffer.allocUnsafe(declaredLength);
  let received = 0;
  return readUntilSettled<Uint8Array | "timeout" | "aborted">(
    req,
    timeoutMs,
    "timeout",
    (settle) => ({
      data: (chunk) => {
        const bytes = chunk as Buffer;
        if (received + bytes.byteLength > declaredLength) return settle("aborted");
        bytes.copy(buffer, received);
        received += bytes.byteLength;
      },
      end: () => settle(received === declaredLength ? buffer.subarray(0, received) : "aborted"),
      error: () => settle("aborted"),
      close: () => {
        if (!req.complete) settle("aborted");
      },
    }),
    // Stop buffering anything else the client sends; the caller answers and closes.
    (outcome) => typeof outcome === "string",
  );
}

/**
 * A POST route's request: its body read within the route's limit and parsed by `parse`, with the pipeline
 * that will check it; null once the request was answered (bad headers, a body too slow, a bad
 * body, or no pipeline) or dropped.
 */
async function admitPost<T>(
  control: ServiceControl,
  req: IncomingMessage,
  res: ServerResponse,
  head: RawHead,
  route: "check" | "screen",
  parse: (bytes: Uint8Array) => T | Reply,
): Promise<{ readonly parsed: T; readonly pipeline: SecurityPipeline } | null> {
  const declared = checkHeaders(head, route);
  if (isReply(declared)) {
    sendReply(res, declared);
    return null;
  }
  // Until the body is in, a stalled body may be closed to make room (after every idle connection).
  control.connections.bodyStarted(req.socket);
  const read = await readBody(req, declared.length, control.readTimeoutMs);
  if (read === "timeout") {
    sendReply(res, REPLIES.bodyTimeout);
    return null;
  }
  if (read === "aborted") {
    // Nobody is left to answer, or the client broke its own Content-Length promise.
    res.destroy();
    return null;
  }
  // From here the connection carries real work and is never closed to make room for another.
  control.connections.workStarted(req.socket);
  const parsed = parse(read);
  const answer = isReply(parsed) ? parsed : control.pipeline === null ? REPLIES.pipelineUnavailable : null;
  if (answer !== null) {
    sendReply(res, answer);
    return null;
  }
  return { parsed: parsed as T, pipeline: control.pipeline as SecurityPipeline };
}

async function answerCheck(control: ServiceControl, req: IncomingMessage, res: ServerResponse, head: RawHead): Promise<void> {
  const admitted = await admitPost(control, req, res, head, "check", parseCheckBody);
  if (admitted === null) return;
  const { parsed, pipeline } = admitted;
  // The wire form is made in the check's slot: a verdict that cannot be serialised is a failed check.
  // A caller that goes away abandons its check: the canary call in flight is closed, not left to run.
  const done = await runQueued(
    control,
    res,
    async (gone) => {
      const verdict = await pipeline.check(parsed.text, { signal: gone });
      return { verdict, wire: verdict.toDict() };
    },
    true,
  );
  if (done === null) return;
  const { verdict, wire } = done.value;
  if (control.accessLog !== null) {
    const coverage = loggedCoverage(wire);
    control.verdicts.set(res, { verdict: batchState(verdict), ...(coverage !== undefined ? { coverage } : {}) });
  }
  return sendReply(res, { status: 200, body: wire }, control.draining);
}

/**
 * `POST /screen`: the batch is admitted by `screen`'s rules (its default limits) before it takes a
 * slot, then screened by `screenBatch` (the one screen path, items one after another) in one check
 * slot; the answer is the `little-canary-batch/v1` document, in the canonical bytes `screen`
 * prints. A caller that goes away stops its batch.
 */
async function answerScreen(control: ServiceControl, req: IncomingMessage, res: ServerResponse, head: RawHead): Promise<void> {
  const admitted = await admitPost(control, req, res, head, "screen", parseScreenBody);
  if (admitted === null) return;
  const { parsed, pipeline } = admitted;
  const done = await runQueued(control, res, async (gone) => serializeBatch(await screenBatch(parsed.inputs, pipeline, { signal: gone })), true);
  if (done === null) return;
  return sendReply(res, { status: 200, body: {}, json: done.value }, control.draining);
}

async function handle(control: ServiceControl, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const head = headFromRaw(req.method ?? "", req.url ?? "", req.rawHeaders);
  // First of all, before routing and before a body byte is read: a foreign Host or Origin learns
  // nothing, not even whether a path exists.
  const caller = admitCaller(head, req.socket.localPort ?? -1, control.allowedOrigins);
  if (!caller.admitted) return sendReply(res, caller.reply);
  for (const [name, value] of Object.entries(corsHeaders(caller.corsOrigin))) res.setHeader(name, value);
  if (caller.corsOrigin !== null && req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
    const method = routeMethod(caller.target);
    if (method !== undefined) {
      const privateNetwork = req.headers["access-control-request-private-network"] === "true";
      res.writeHead(204, preflightHeaders(caller.corsOrigin, method, privateNetwork, control.token !== null && method === "POST")).end();
      return;
    }
  }
  if (control.draining) return sendReply(res, REPLIES.shuttingDown);
  // Routed by its origin-form path: an absolute-form target naming this service is that path.
  const route = routeRequest({ ...head, target: caller.target });
  if (isReply(route)) return sendReply(res, route);
  // Before a body byte is read: a caller without the token gets no check, no batch, no slot. The
  // token guards the routes that take text; probes stay open (docs/serve.md).
  const refused = control.token !== null && (route === "check" || route === "screen") ? authorize(control.token, head.authorization) : null;
  if (refused !== null) return sendReply(res, refused);
  if (route === "check") return answerCheck(control, req, res, head);
  if (route === "screen") return answerScreen(control, req, res, head);
  const body = await healthBody(control);
  // /health always answers 200 (liveness); /ready answers 503 unless the report says ready, so a
  // readiness probe takes a pod whose canary is down (or unchecked for too long) out of traffic.
  const status = route === "ready" && body["ready"] !== true ? 503 : 200;
  return sendReply(res, { status, body }, control.draining);
}

/** The reply for a request the HTTP parser refused, following the same ladder where it can. */
function replyForClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, port: number, control: ServiceControl): Reply {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return REPLIES.headerTimeout;
  if (error.code === "HPE_HEADER_OVERFLOW") return { ...REPLIES.badRequest, status: 431, body: { error: "request headers too large" } };
  const head = parseRawHead(error.rawPacket);
  if (head === null) return REPLIES.badRequest;
  const caller = admitCaller(head, port, control.allowedOrigins);
  if (!caller.admitted) return caller.reply;
  const route = routeRequest({ ...head, target: caller.target });
  if (isReply(route)) return route;
  if (route === "check" || route === "screen") {
    const refused = control.token === null ? null : authorize(control.token, head.authorization);
    if (refused !== null) return refused;
    const declared = checkHeaders(head, route);
    if (isReply(declared)) return declared;
  }
  return REPLIES.badRequest;
}

function allowedOriginSet(entries: readonly string[]): ReadonlySet<string> {
  const origins = entries.map((entry) => normalizeAllowedOrigin(entry));
  if (origins.includes(null)) throw new RangeError("allowOrigins entries must be http(s) origins such as http://localhost:3000");
  return new Set(origins as string[]);
}

/**
 * Builds the service around one pipeline (null answers `/check` with 503 "pipeline unavailable"
 * and `/health` with "not initialized"). The server is not listening yet: use listenLoopback.
 */
export function createServer(pipeline: SecurityPipeline | null, options: ServeOptions = {}): Server {
  const readTimeoutMs = timerMs("readTimeoutMs", options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  const headersTimeoutMs = timerMs("headersTimeoutMs", options.headersTimeoutMs ?? Math.min(DEFAULT_HEADERS_TIMEOUT_MS, readTimeoutMs));
  const keepAliveTimeoutMs = timerMs("keepAliveTimeoutMs", options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS);
  const connections = new ConnectionLimiter(integerAtLeast("maxConnections", options.maxConnections ?? DEFAULT_MAX_CONNECTIONS));
  const healthTtlMs = timerMs("healthTtlMs", options.healthTtlMs ?? DEFAULT_HEALTH_TTL_MS);
  const healthStaleWaitMs = timerMs("healthStaleWaitMs", options.healthStaleWaitMs ?? DEFAULT_STALE_WAIT_MS, 0);
  const now = options.now ?? (() => performance.now());
  const control: ServiceControl = {
    pipeline,
    queue: new CheckQueue(
      integerAtLeast("maxConcurrent", options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT),
      integerAtLeast("maxQueue", options.maxQueue ?? DEFAULT_MAX_QUEUE, 0),
    ),
    connections,
    allowedOrigins: allowedOriginSet(options.allowOrigins ?? []),
    token: options.token === undefined ? null : bearerToken(options.token),
    health: pipeline === null ? null : new HealthCache(pipeline, healthTtlMs, { now: options.now, staleWaitMs: healthStaleWaitMs }),
    log: options.log ?? silentLog,
    accessLog: options.accessLog ?? null,
    readTimeoutMs,
    verdicts: new WeakMap(),
    draining: false,
    activeRequests: 0,
    idleWaiters: [],
  };
  const server = createHttpServer(
    {
      headersTimeout: headersTimeoutMs,
      // Covers headers plus body; our own body deadline fires first and answers in JSON.
      requestTimeout: headersTimeoutMs + readTimeoutMs + 1000,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(headersTimeoutMs, readTimeoutMs) / 4))),
      keepAliveTimeout: keepAliveTimeoutMs,
      // A missing Host is refused by the caller check with a JSON answer, not Node's bare 400.
      requireHostHeader: false,
    },
    (req, res) => {
      control.activeRequests++;
      const socket = req.socket;
      const startedAt = now();
      // Read now, while the socket is open: an absolute-form target naming this service logs as its route.
      const route = loggedRoute(originFormTarget(req.url ?? "", socket.localPort ?? -1) ?? undefined);
      connections.requestStarted(socket);
      res.once("close", () => {
        connections.responseDone(socket);
        // An answered (or abandoned) request: nothing from it but its known method and route.
        control.accessLog?.({
          method: loggedMethod(req.method),
          route,
          status: res.headersSent ? res.statusCode : null,
          ...(control.verdicts.get(res) ?? {}),
          latency_ms: Math.round(Math.max(0, now() - startedAt) * 10) / 10,
        });
        control.activeRequests--;
        if (control.activeRequests === 0) control.idleWaiters.splice(0).forEach((wake) => wake());
      });
      handle(control, req, res).catch((error: unknown) => {
        control.log("ERROR", `Request handling failed (${errorClassName(error)})`);
        if (!res.headersSent) sendReply(res, REPLIES.pipelineFailed);
        else res.destroy();
      });
    },
  );
  connections.attach(server);
  server.maxHeadersCount = 100;
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    // A response already under way (e.g. a timed-out body being answered) must not get a second one.
    const inProgress = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inProgress?.headersSent) {
      socket.destroy();
      return;
    }
    // Bytes after a request received whole and still being answered (a pipelined request) that
    // the parser refuses: that request keeps its answer, logged as sent, and the connection
    // closes after it; a refusal written now would end the socket under it. An error while the
    // request in progress is still being received (its body cut short, timed out) is about that
    // request itself, and is answered below.
    if (inProgress?.req?.complete === true && error.code !== "ERR_HTTP_REQUEST_TIMEOUT") {
      inProgress.shouldKeepAlive = false;
      return;
    }
    const reply = replyForClientError(error, socket.localPort ?? -1, control);
    // A request already handed to the handler is logged when its response closes, not twice.
    if (control.accessLog !== null && !inProgress) {
      const head = parseRawHead(error.rawPacket);
      const target = head === null ? null : originFormTarget(head.target, socket.localPort ?? -1);
      control.accessLog({ method: loggedMethod(head?.method), route: loggedRoute(target ?? undefined), status: reply.status, latency_ms: null });
    }
    writeRawReply(socket, reply);
  });
  server.once("listening", () => {
    void control.health?.refresh();
  });
  controls.set(server, control);
  return server;
}
