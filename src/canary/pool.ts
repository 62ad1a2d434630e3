// A pool of canary endpoints serving one model, used as one canary probe. Each check goes, in queue order, to the
// least-loaded endpoint with a free slot; an endpoint that cannot be reached, answers 503 or times out gets the same
// request sent to one not yet tried (MAX_POOL_ATTEMPTS in all), and is taken out after TAKE_OUT_AFTER such failures in
// a row. The pool pins every endpoint's identity before its first check (pool-identity.ts). Which endpoint answered goes
// only to the attempt log, so a run's documents are the same whatever the number of endpoints.
import { CanaryRefusal, shownList } from "./served-models.js";
import { sha256Hex } from "../core/hash.js";
import { pinPoolIdentity, type PinOutcome, type PinRequirement, type PoolProbe } from "./pool-identity.js";
import { replyModelMismatchText } from "./canary-client.js";
import { startCanaryResult, type CanaryFailureCode, type CanaryProbe, type CanaryProvider, type CanaryResult } from "./types.js";
import { displayText } from "../core/display-text.js";
import { brandCanary, type ProbeIdentity } from "./identity.js";
import { ChatSettings } from "./options.js";

/** Most endpoints one check is sent to (the first try included). */
export const MAX_POOL_ATTEMPTS = 3;
/** Consecutive connection errors, 503s or timeouts after which an endpoint is taken out. */
export const TAKE_OUT_AFTER = 3;

/** One endpoint of the pool: its probe and its own cap on checks in flight (null: no cap of its own). */
export interface PoolMember {
  readonly probe: PoolProbe;
  readonly concurrency: number | null;
}

/** One attempt of one check, as the attempt log records it (no text, no URL beyond the origin). */
export interface EndpointAttempt {
  /** Number of the check within this pool, from 1 in the order the checks started. */
  readonly check: number;
  /** 1 for the first try, 2 and 3 for retries of the same request. */
  readonly attempt: number;
  /** Redacted origin of the endpoint that was tried. */
  readonly endpoint: string;
  /** "ok", or the failure code of the attempt. */
  readonly outcome: "ok" | CanaryFailureCode;
  readonly http_status: number | null;
  readonly latency_ms: number;
  /** SHA-256 of the checked text (the manifest's segment sha256 for an ingest segment). */
  readonly text_sha256: string;
  /** Whether the request is sent again to another endpoint after this attempt. */
  readonly retried: boolean;
  /** Whether this attempt took the endpoint out of the pool. */
  readonly taken_out: boolean;
}

/** Options of a CanaryPool. */
export interface CanaryPoolOptions {
  readonly members: readonly PoolMember[];
  /** Receives one line per operational event (an endpoint taken out); never input text. */
  readonly onWarning?: (message: string) => void;
  /** Receives every attempt of every check (the endpoint log). */
  readonly onAttempt?: (attempt: EndpointAttempt) => void;
  /** Monotonic clock in milliseconds. */
  readonly now?: () => number;
}

interface MemberState {
  readonly index: number;
  readonly member: PoolMember;
  inFlight: number;
  consecutiveFailures: number;
  active: boolean;
}

interface Waiter {
  readonly tried: ReadonlySet<number>;
  readonly resolve: (state: MemberState | null) => void;
}

/** Whether a failed attempt may be sent again to another endpoint: the endpoint, not the request, failed. */
function isRetryableFailure(result: CanaryResult): boolean {
  if (result.success) return false;
  return result.failureCode === "unavailable" || result.failureCode === "timeout" || (result.failureCode === "http_error" && result.httpStatus === 503);
}

const NONE_LEFT = "no canary endpoint is left in the pool: every endpoint was taken out after repeated failures";

/** Several endpoints serving one model, used as one canary probe (see the header). */
export class CanaryPool extends ChatSettings implements CanaryProbe {
  readonly provider: CanaryProvider;
  readonly systemPrompt: string;
  /** The endpoints' origins, listed (at most four, then a count). */
  readonly endpointOrigin: string;
  /** The endpoints' probes, in the order given. */
  readonly members: readonly PoolMember[];
  readonly #states: MemberState[];
  readonly #waiters: Waiter[] = [];
  readonly #onWarning: (message: string) => void;
  readonly #onAttempt: ((attempt: EndpointAttempt) => void) | null;
  readonly #now: () => number;
  #pin: Promise<PinOutcome> | null = null;
  #settled: PinOutcome | null = null;
  #checks = 0;
  #logBroken = false;
  readonly #warnedOtherModel = new Set<number>();

  constructor(options: CanaryPoolOptions) {
    const members = options.members;
    if (!Array.isArray(members) || members.length === 0) throw new RangeError("a canary pool needs at least one endpoint");
    const first = (members[0] as PoolMember).probe;
    // What can change a verdict (identity()) and the deadline: the same on every endpoint.
    const settings = (probe: PoolProbe): string => JSON.stringify([probe.identity(), probe.timeoutSeconds]);
    for (const { probe, concurrency } of members) {
      if (concurrency !== null && (!Number.isSafeInteger(concurrency) || concurrency < 1))
        throw new RangeError("an endpoint's concurrency must be a positive integer");
      if (settings(probe) !== settings(first)) throw new RangeError("every endpoint of a canary pool must be probed with the same settings");
    }
    super(first);
    this.members = Object.freeze([...members]);
    this.provider = first.provider;
    this.systemPrompt = first.systemPrompt;
    this.endpointOrigin = shownList(
      members.map((m) => m.probe.endpointOrigin),
      4,
    );
    this.#states = members.map((member, index) => ({ index, member, inFlight: 0, consecutiveFailures: 0, active: true }));
    this.#onWarning = options.onWarning ?? (() => {});
    this.#onAttempt = options.onAttempt ?? null;
    this.#now = options.now ?? (() => performance.now());
    brandCanary(this, "pool", new.target === CanaryPool);
  }

  /** What of this pool can change a verdict (canary/identity.ts): its endpoints' shared settings and the pinned fingerprint (null until pinned). */
  identity(): ProbeIdentity {
    const pinned = this.#settled;
    return { ...(this.members[0] as PoolMember).probe.identity(), poolFingerprintSha256: pinned?.ok ? pinned.identity.fingerprintSha256 : null };
  }

  /** The context window sent to Ollama endpoints (null for OpenAI-compatible ones). */
  get numCtx(): number | null {
    const probe = (this.members[0] as PoolMember).probe;
    return "numCtx" in probe ? probe.numCtx : null;
  }

  /** Pins every endpoint's identity once (pool-identity.ts): the outcome, even a refusal, holds for life; only the first call's `requirement` counts. */
  pin(requirement: PinRequirement = {}): Promise<PinOutcome> {
    this.#pin ??= pinPoolIdentity(
      this.members.map((m) => m.probe),
      requirement,
    ).then((outcome) => {
      this.#settled = outcome;
      return outcome;
    });
    return this.#pin;
  }

  /** The pinned identity once pin() has settled, else null; never makes a request. */
  get knownPin(): PinOutcome | null {
    return this.#settled;
  }

  /**
   * Sends `userInput` to the pool; never throws for backend trouble. One check, one result.
   * `signal`: the caller's abort, which abandons the call; an abandoned call is not an
   * endpoint's failure (not retried elsewhere, never counted towards taking one out).
   */
  async test(userInput: string, signal?: AbortSignal): Promise<CanaryResult> {
    const pinned = await this.pin();
    if (!pinned.ok) {
      return startCanaryResult(this.model, this.#now).failure("unavailable", `Canary pool identity could not be pinned: ${pinned.error}`);
    }
    const check = ++this.#checks;
    const textSha256 = this.#onAttempt === null ? "" : sha256Hex(userInput);
    const tried = new Set<number>();
    let last: CanaryResult | null = null;
    for (let attempt = 1; attempt <= MAX_POOL_ATTEMPTS; attempt++) {
      const state = await this.#acquire(tried, signal);
      if (state === null) break;
      tried.add(state.index);
      const started = this.#now();
      let result: CanaryResult;
      try {
        result = await state.member.probe.test(userInput, signal);
      } finally {
        state.inFlight--;
      }
      if (signal?.aborted === true) {
        this.#serveWaiters();
        return result;
      }
      const retryable = isRetryableFailure(result);
      state.consecutiveFailures = retryable ? state.consecutiveFailures + 1 : 0;
      const takenOut = retryable && state.active && state.consecutiveFailures >= TAKE_OUT_AFTER;
      if (takenOut) this.#takeOut(state, result.failureCode as CanaryFailureCode);
      const retried = retryable && attempt < MAX_POOL_ATTEMPTS && this.#hasCandidate(tried);
      this.#log({
        check,
        attempt,
        endpoint: state.member.probe.endpointOrigin,
        outcome: result.success ? "ok" : (result.failureCode ?? "probe_exception"),
        http_status: result.httpStatus ?? null,
        latency_ms: Math.max(0, Math.round((this.#now() - started) * 1000) / 1000),
        text_sha256: textSha256,
        retried,
        taken_out: takenOut,
      });
      this.#serveWaiters();
      if (!result.success && result.error === replyModelMismatchText(this.model)) this.#warnOtherModel(state);
      if (!retried) return result;
      last = result;
    }
    return last ?? startCanaryResult(this.model, this.#now).failure("unavailable", NONE_LEFT);
  }

  /** Whether every endpoint answers and has the model (see each probe's isAvailable); never throws. */
  async isAvailable(): Promise<boolean> {
    const answers = await Promise.all(this.members.map((m) => m.probe.isAvailable().catch(() => false)));
    return answers.every(Boolean);
  }

  /** Provider, model, how many endpoints and their origins: never a full URL or a key. */
  toJSON(): Record<string, unknown> {
    return {
      provider: this.provider,
      model: this.model,
      endpoints: this.members.map((m) => ({ endpointOrigin: m.probe.endpointOrigin, concurrency: m.concurrency })),
    };
  }

  override toString(): string {
    return `CanaryPool(${this.model} at ${this.endpointOrigin})`;
  }

  /** An attempt log that fails must not fail the check it describes: it is reported once and dropped. */
  #log(attempt: EndpointAttempt): void {
    if (this.#onAttempt === null || this.#logBroken) return;
    try {
      this.#onAttempt(attempt);
    } catch (error) {
      this.#logBroken = true;
      const code = (error as NodeJS.ErrnoException | null)?.code;
      const why = typeof code === "string" && /^E[A-Z]+$/.test(code) ? ` (${code})` : "";
      this.#onWarning(`the canary endpoint log could not be written${why}; no further attempts are logged`);
    }
  }

  /** Once per endpoint: a reply named another model (behind a router, another replica answered). */
  #warnOtherModel(state: MemberState): void {
    if (this.#warnedOtherModel.has(state.index)) return;
    this.#warnedOtherModel.add(state.index);
    this.#onWarning(
      `canary endpoint ${state.member.probe.endpointOrigin} answered as a model other than ${displayText(this.model)}: that check is degraded, never a pass ` +
        "(a router in front of mixed replicas?); every reply from this endpoint is checked",
    );
  }

  #takeOut(state: MemberState, reason: CanaryFailureCode): void {
    state.active = false;
    const left = this.#states.filter((s) => s.active).length;
    this.#onWarning(
      `canary endpoint ${state.member.probe.endpointOrigin} taken out of the pool after ${TAKE_OUT_AFTER} consecutive failures (${reason}); ` +
        (left === 0 ? "no endpoint is left, so the remaining checks fail as unavailable" : `${left} endpoint${left === 1 ? "" : "s"} left`),
    );
  }

  #hasCandidate(tried: ReadonlySet<number>): boolean {
    return this.#states.some((s) => s.active && !tried.has(s.index));
  }

  /** The least-loaded free endpoint not in `tried` (fewest in flight, then most room, then order). */
  #pick(tried: ReadonlySet<number>): MemberState | null {
    let best: MemberState | null = null;
    for (const state of this.#states) {
      if (tried.has(state.index) || !state.active || room(state) <= 0) continue;
      if (best === null || state.inFlight < best.inFlight || (state.inFlight === best.inFlight && room(state) > room(best))) best = state;
    }
    return best;
  }

  /**
   * A slot on an endpoint not yet tried for this check, waiting in turn for one; null when none can
   * come, or once `signal` aborts (the check leaves the queue, taking no slot).
   */
  #acquire(tried: ReadonlySet<number>, signal: AbortSignal | undefined): Promise<MemberState | null> {
    if (!this.#hasCandidate(tried) || signal?.aborted === true) return Promise.resolve(null);
    // Waiting checks keep their order: a new one queues behind those waiting, and the queue is served at once (a slot no earlier check can use).
    return new Promise((resolve) => {
      const leave = (): void => {
        const at = this.#waiters.indexOf(waiter);
        if (at === -1) return;
        this.#waiters.splice(at, 1);
        resolve(null);
      };
      const waiter: Waiter = {
        tried,
        resolve: (state) => {
          signal?.removeEventListener("abort", leave);
          resolve(state);
        },
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.#waiters.push(waiter);
      this.#serveWaiters();
    });
  }

  /** Hands freed slots to waiting checks in arrival order; resolves null for a check no endpoint is left for. */
  #serveWaiters(): void {
    for (let i = 0; i < this.#waiters.length; ) {
      const waiter = this.#waiters[i] as Waiter;
      // A free slot is handed over; with none now but one to come, the check keeps its place; with none to come, it gets null.
      const state = this.#pick(waiter.tried);
      if (state === null && this.#hasCandidate(waiter.tried)) {
        i++;
        continue;
      }
      if (state !== null) state.inFlight++;
      this.#waiters.splice(i, 1);
      waiter.resolve(state);
    }
  }
}

function room(state: MemberState): number {
  return state.member.concurrency === null ? Number.POSITIVE_INFINITY : state.member.concurrency - state.inFlight;
}

/** A canary pool whose endpoints could not be pinned to one identity: the run must not start. */
class CanaryPoolError extends CanaryRefusal {
  override readonly name = "CanaryPoolError";
}

/** Pins `probe`'s identity when it is a canary pool, before a run's first check; throws CanaryPoolError ("backend") on refusal. */
export async function pinCanaryPool(probe: CanaryProbe): Promise<void> {
  if (!(probe instanceof CanaryPool)) return;
  const pinned = await probe.pin();
  if (!pinned.ok) throw new CanaryPoolError(`${pinned.error}; the run is refused before any check`);
}
