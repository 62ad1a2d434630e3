// The skeleton both HTTP canary probes share: a check's order (the run's warm-up, the provider's checks before sending,
// one chat, a pool member's pinned-model check, the provider's proof that the whole prompt was read); each provider
// adds its request, reply evidence and proof. test() never throws for backend trouble, so a canary that did not run
// cannot look like a pass; the backend (full URL, any key) stays private: String(), JSON, messages show model and origin.
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import { ChatClient, type ChatClientOptions, type ChatRole, type OllamaChatBackend, type OpenAIChatBackend } from "./chat-backend.js";
import { failed, readChatObject, type ChatFailure, type ChatOutcome, type ChatTurn } from "./chat-exchange.js";
import { errorClassName } from "../core/errors.js";
import type { HttpCallOutcome } from "./http-call.js";
import { checkSystemPrompt } from "./options.js";
import { CALIBRATION_PROBE_TEXT } from "./run-context.js";
import { startCanaryResult, type CanaryFailureCode, type CanaryMetadata, type CanaryProbe, type CanaryProvider, type CanaryResult } from "./types.js";
import type { ProbeIdentity } from "./identity.js";

/** Options every HTTP canary probe takes beside its provider's URL (and key). */
export interface CanaryClientOptions extends ChatClientOptions {
  readonly systemPrompt?: string;
  /** Monotonic clock in milliseconds, for latency. */
  readonly now?: () => number;
  /** Fail a reply whose `model` is not `model` (`invalid_response`): set for a pool's endpoints, where a URL may be a router. */
  readonly checkReplyModel?: boolean;
}

/** Why the warm-up gave no answer to calibrate on: the failure every check then reports. */
export type WarmUpFailure = { readonly ok: false; readonly failureCode: CanaryFailureCode; readonly error: string };

/** The provider's conclusion on one reply: the metadata of a success, or why it is not one. */
export type ReplyProof = { readonly ok: true; readonly metadata: CanaryMetadata } | ChatFailure;

/** The role of a canary probe on `urlOption`: its defaults and the names its messages use. */
export function probeRole(model: string, urlOption: string): ChatRole {
  return { defaults: { model, timeoutSeconds: 10, maxTokens: 256 }, name: "", urlOption };
}

/** A request that could not be built (postChat gave none): reported as the probe's own failure. */
const NO_REQUEST = failed("probe_exception", "Canary probe failed (UsageError)");

/** A canary probe on a chat backend; `Warm` is what the provider's warm-up learnt, `Plan` what its checks before sending found (an exact prompt count). */
export abstract class CanaryClient<Backend extends OllamaChatBackend | OpenAIChatBackend, Warm extends { readonly ok: true }, Plan>
  extends ChatClient<Backend>
  implements CanaryProbe
{
  abstract readonly provider: "ollama" | "openai";
  readonly systemPrompt: string;
  /** Whether every reply's `model` must name this probe's model (see the options). */
  readonly checkReplyModel: boolean;
  readonly #now: () => number;
  /** The warm-up in flight or answered; kept once answered, retried after a transport failure. */
  #warmUp: Promise<Warm | WarmUpFailure> | null = null;
  #settled: Warm | null = null;

  /** `makeBackend` builds the backend; the system prompt and `checkOwn` are checked after the settings, before the URL and key. */
  protected constructor(options: CanaryClientOptions, makeBackend: (check: () => void) => Backend, checkOwn: () => void = () => undefined) {
    const own: { systemPrompt?: string } = {};
    super(
      makeBackend(() => {
        own.systemPrompt = checkSystemPrompt(options.systemPrompt ?? DEFAULT_CANARY_SYSTEM_PROMPT);
        checkOwn();
      }),
    );
    this.systemPrompt = own.systemPrompt as string;
    this.checkReplyModel = options.checkReplyModel === true;
    this.#now = options.now ?? (() => performance.now());
  }

  /** What of this probe can change a verdict (canary/identity.ts): model, prompt and sampling. */
  identity(): ProbeIdentity {
    const { provider, model, systemPrompt, temperature, seed, maxTokens } = this;
    return { provider, model, systemPrompt, numCtx: null, temperature, seed, maxTokens };
  }

  /** Sends `userInput` to the canary; never throws for backend trouble, every failure is a result with a failure code. */
  async test(userInput: string, signal?: AbortSignal): Promise<CanaryResult> {
    const result = startCanaryResult(this.model, this.#now);
    const fail = (f: WarmUpFailure | ChatFailure): CanaryResult =>
      "metadata" in f ? result.failure(f.failureCode, f.error, f.metadata, f.httpStatus) : result.failure(f.failureCode, f.error);
    try {
      const warm = await this.warmedUp();
      if (!warm.ok) return fail(warm);
      const plan = await this.beforeChat(userInput, warm);
      if (isFailure(plan)) return fail(plan);
      // The warm-up is shared by concurrent callers, so only the chat itself takes this caller's abort.
      const turn = { systemPrompt: this.systemPrompt, userContent: userInput, maxTokens: this.maxTokens };
      const outcome = await this.post(signal ? { ...turn, signal } : turn);
      const chat: ChatOutcome = outcome === null ? NO_REQUEST : this.backend.interpret(outcome, turn.maxTokens);
      if (!chat.ok) {
        if (chat.failureCode === "unavailable") this.onUnreachable();
        return fail(chat);
      }
      const metadata = this.backend.replyMetadata(chat.data);
      if (this.checkReplyModel && !replyModelMatches(this.provider, chat.data["model"], this.model)) {
        return result.failure("invalid_response", replyModelMismatchText(this.model), metadata);
      }
      const proof = this.proveReply(userInput, metadata, warm, plan);
      return proof.ok ? result.success(chat.content, proof.metadata) : fail(proof);
    } catch (error) {
      // httpCall already turns transport errors into values; this catches anything unforeseen.
      return result.failure("probe_exception", unforeseen(error), {});
    }
  }

  /** The run's warm-up (the provider's `warmUp`), shared by concurrent callers; an answer is kept until `forgetWarmUp`, a failure retried. */
  protected warmedUp(): Promise<Warm | WarmUpFailure> {
    if (this.#warmUp === null) {
      const attempt = this.warmUp().catch((error: unknown): WarmUpFailure => ({ ok: false, failureCode: "probe_exception", error: unforeseen(error) }));
      this.#warmUp = attempt;
      void attempt.then((outcome) => {
        if (this.#warmUp !== attempt) return;
        if (outcome.ok) this.#settled = outcome;
        else this.#warmUp = null;
      });
    }
    return this.#warmUp;
  }

  /** The warm-up's answer once it has come, else null; never makes a request. */
  protected get settledWarmUp(): Warm | null {
    return this.#settled;
  }

  /** Drops the warm-up's answer: the next check warms up again. */
  protected forgetWarmUp(): void {
    this.#warmUp = null;
    this.#settled = null;
  }

  /** The warm-up's chat of the calibration prompt (one output token) as a JSON object, or why there is none; `refusal` names a provider's own failure first. */
  protected async calibrationReply(
    refusal: (outcome: HttpCallOutcome) => ChatFailure | null = () => null,
  ): Promise<{ readonly ok: true; readonly data: Record<string, unknown> } | WarmUpFailure> {
    const outcome = await this.post({ systemPrompt: this.systemPrompt, userContent: CALIBRATION_PROBE_TEXT, maxTokens: 1 });
    const texts = { service: this.backend.service, origin: this.endpointOrigin, timeoutSeconds: this.timeoutSeconds };
    const read = outcome === null ? NO_REQUEST : (refusal(outcome) ?? readChatObject(outcome, texts));
    // The warm-up's failure is the run's: only its code and message are kept.
    return read.ok ? read : { ok: false, failureCode: read.failureCode, error: read.error };
  }

  /** The provider's warm-up: the calibration reply (see calibrationReply) and what it learns from the server. */
  protected abstract warmUp(): Promise<Warm | WarmUpFailure>;

  /** POSTs one turn in the provider's request shape; null when no request can be built. */
  protected post(turn: ChatTurn): Promise<HttpCallOutcome | null> {
    return this.backend.post(turn);
  }

  /** The provider's checks before the text is sent: a failure (nothing is sent), or what they found. */
  protected abstract beforeChat(userInput: string, warm: Warm): Promise<Plan | ChatFailure>;

  /** The provider's proof that the reply covers the whole prompt (the security checks of docs/canary.md). */
  protected abstract proveReply(userInput: string, metadata: CanaryMetadata, warm: Warm, plan: Plan): ReplyProof;

  /** Called when a check could not reach the backend; the Ollama probe proves its context again. */
  protected onUnreachable(): void {}

  override toString(): string {
    return `${this.provider === "ollama" ? "OllamaCanaryProbe" : "OpenAICanaryProbe"}(${this.model} at ${this.endpointOrigin})`;
  }
}

// The model a reply names, checked against the pinned one: behind a router one URL stands for many replicas, and one serving another
// model would answer unnoticed; a reply without a string `model` cannot vouch for it. For Ollama, `<m>:latest` names an untagged `m`.
function replyModelMatches(provider: CanaryProvider, replyModel: unknown, expected: string): boolean {
  if (typeof replyModel !== "string") return false;
  if (replyModel === expected) return true;
  return provider === "ollama" && !expected.includes(":") && replyModel === `${expected}:latest`;
}

/** The failure text of a reply from another model (names only the model that was expected). */
export function replyModelMismatchText(expected: string): string {
  return `Canary reply does not name the pinned model ${expected} (a router may have sent the request to another model); the check is not a pass`;
}

/** The message of a failure nobody foresaw: the error's class name only, never its text. */
function unforeseen(error: unknown): string {
  return `Canary probe failed (${errorClassName(error)})`;
}

function isFailure<Plan>(plan: Plan | ChatFailure): plan is ChatFailure {
  return typeof plan === "object" && plan !== null && (plan as { ok?: unknown }).ok === false;
}
