// The canary probe that runs a GGUF model in this process through node-llama-cpp (optional, embedded-engine.ts), with
// the HTTP probes' contract (test() never throws for backend trouble; one deadline per call). `open()` runs once: import
// the engine, check the file's SHA-256 before loading it without mmap, check the file unchanged, make one context with a
// sequence per concurrent slot. Each prompt is counted with the model's tokenizer and refused as `context_too_long` when
// it does not fit: the engine never cuts an input. After `dispose()` a call in flight is `unavailable`.
import { availableParallelism } from "node:os";
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { ConfigError, errorClassName, LittleCanaryError } from "../core/errors.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import { embeddedRequiredContext } from "./context.js";
import {
  type EmbeddedEngineModule,
  type EngineChatWrapper,
  type EngineContext,
  type EngineLlama,
  type EngineModel,
  type EngineModuleLoader,
  type EngineSequence,
  type EngineToken,
  importEmbeddedEngine,
  loadEmbeddedEngine,
} from "./embedded-engine.js";
import { modelFileStamp, sameStamp, verifyModelFile } from "./embedded-models.js";
import { formatSeconds } from "./http-call.js";
import { ChatSettings, checkPositiveInteger, checkSystemPrompt, resolveChatSettings } from "./options.js";
import { probeRole, type CanaryClientOptions } from "./canary-client.js";
import { startCanaryResult, type CanaryProbe, type CanaryResult } from "./types.js";
import { displayText } from "../core/display-text.js";
import { brandCanary, type EmbeddedModelIdentity, type ProbeIdentity } from "./identity.js";

/** Options of the embedded probe; `modelPath` and `sha256` are required. */
export interface EmbeddedCanaryProbeOptions
  extends Pick<CanaryClientOptions, "systemPrompt" | "timeoutSeconds" | "maxTokens" | "temperature" | "seed" | "now"> {
  /** The GGUF file. */
  readonly modelPath: string;
  /** The file's SHA-256 (64 hex digits): its identity, checked before it is loaded. */
  readonly sha256: string;
  /** Code points of the longest window the pipeline sends (sizes the context). Default 4000. */
  readonly maxInputLength?: number;
  /** Tokens per sequence; default: what the longest window needs, at most the trained context. */
  readonly contextSize?: number | null;
  /** Concurrent checks (context sequences). Default 1. */
  readonly sequences?: number;
  /** CPU threads for evaluation. Default: half the available cores, at least 1. */
  readonly threads?: number;
  /** `auto` offloads to a GPU when the engine has one; false stays on the CPU. Default auto. */
  readonly gpu?: "auto" | false;
  /** Imports node-llama-cpp (tests inject a missing or stand-in module). */
  readonly loader?: EngineModuleLoader;
  /** Set when `modelPath` is the default model in the pull cache: a missing file then names `model pull`. */
  readonly pulled?: boolean;
}

/** What the opened engine reports about itself: the identity the manifest records. */
export interface EmbeddedIdentity extends EmbeddedModelIdentity {
  /** Always `file-sha256`: the model is identified by its file's SHA-256. */
  readonly identity: "file-sha256";
  readonly engine: "node-llama-cpp";
  /** The model's trained context length (from the GGUF). */
  readonly train_context_size: number;
  readonly sequences: number;
}

/** The opened engine, or the typed error that kept it from opening. */
export type EmbeddedOpenOutcome = { readonly ok: true; readonly identity: EmbeddedIdentity } | { readonly ok: false; readonly error: LittleCanaryError };

interface OpenEngine {
  readonly llama: EngineLlama;
  readonly model: EngineModel;
  readonly wrapper: EngineChatWrapper;
  readonly context: EngineContext;
  readonly identity: EmbeddedIdentity;
}

/** Every probe that has started opening, so that one call can release them all. */
const OPEN_PROBES = new Set<EmbeddedCanaryProbe>();

/** Releases every embedded canary's engine (the CLI calls this when a command ends or is interrupted). */
export async function disposeEmbeddedCanaries(): Promise<void> {
  await Promise.all([...OPEN_PROBES].map((probe) => probe.dispose()));
}

function safeName(path: string): string {
  const name = basename(path)
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .slice(0, 200);
  return name === "" ? "model.gguf" : name;
}

class Disposed extends Error {}

/** A check waiting for a free sequence; `cancelled` once its deadline passed first. */
interface Waiter {
  resolve: (sequence: EngineSequence | null) => void;
  cancelled: boolean;
  given: EngineSequence | null;
}

/** The embedded canary: a GGUF model run in-process, powerless and tool-less, like the HTTP canaries. */
export class EmbeddedCanaryProbe extends ChatSettings implements CanaryProbe {
  readonly provider = "embedded" as const;
  readonly modelPath: string;
  readonly sha256: string;
  readonly systemPrompt: string;
  readonly maxInputLength: number;
  readonly contextSize: number | null;
  readonly sequences: number;
  readonly threads: number;
  readonly gpu: "auto" | false;
  /** There is no endpoint: the model runs in this process. */
  readonly endpointOrigin = "embedded";
  readonly #loader: EngineModuleLoader;
  readonly #pulled: boolean;
  readonly #now: () => number;
  #opening: Promise<OpenEngine | LittleCanaryError> | null = null;
  #engine: OpenEngine | null = null;
  #free: EngineSequence[] = [];
  #waiting: Waiter[] = [];
  #disposed = false;

  constructor(options: EmbeddedCanaryProbeOptions) {
    if (typeof options?.modelPath !== "string" || options.modelPath.trim() === "") throw new ConfigError("the embedded canary needs a model file path");
    if (typeof options.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(options.sha256)) {
      throw new ConfigError("the embedded canary needs the model file's SHA-256 (64 lowercase hex digits, --canary-sha256)");
    }
    // The model is named by its file (the identity is `sha256`); the generation settings are a probe's.
    const { defaults } = probeRole("embedded", "modelPath");
    super({ ...resolveChatSettings({ ...options, model: defaults.model }, defaults), model: safeName(options.modelPath) });
    this.modelPath = options.modelPath;
    this.sha256 = options.sha256;
    this.systemPrompt = checkSystemPrompt(options.systemPrompt ?? DEFAULT_CANARY_SYSTEM_PROMPT);
    this.maxInputLength = checkPositiveInteger(options.maxInputLength ?? 4000, "maxInputLength", ConfigError);
    this.contextSize = options.contextSize == null ? null : checkPositiveInteger(options.contextSize, "the embedded context size", ConfigError);
    this.sequences = checkPositiveInteger(options.sequences ?? 1, "the embedded canary's sequences (--concurrency)", ConfigError);
    // Half the cores: llama.cpp's threads spin while waiting, and on a shared machine every core in use slows evaluation vastly (docs/embedded.md).
    this.threads = checkPositiveInteger(options.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)), "the embedded canary's threads", ConfigError);
    if (options.gpu !== undefined && options.gpu !== "auto" && options.gpu !== false) throw new ConfigError("gpu must be 'auto' or false");
    this.gpu = options.gpu ?? "auto";
    this.#loader = options.loader ?? importEmbeddedEngine;
    this.#pulled = options.pulled === true;
    this.#now = options.now ?? (() => performance.now());
    brandCanary(this, "embedded", new.target === EmbeddedCanaryProbe);
  }

  /** What of this probe can change a verdict (canary/identity.ts); `embedded` is null until the engine opened. */
  identity(): ProbeIdentity {
    const { provider, model, systemPrompt, temperature, seed, maxTokens } = this;
    return { provider, model, systemPrompt, numCtx: null, temperature, seed, maxTokens, embedded: this.knownIdentity };
  }

  /** Opens the engine once (see the header); never throws: a failure carries a typed error (`config`, or `backend` when the engine failed). */
  async open(): Promise<EmbeddedOpenOutcome> {
    if (this.#opening === null) {
      OPEN_PROBES.add(this);
      this.#opening = this.#open().catch((error: unknown) =>
        error instanceof LittleCanaryError
          ? error
          : new LittleCanaryError("backend", `the embedded canary failed to start (${errorClassName(error)})`, { cause: error }),
      );
    }
    const opened = await this.#opening;
    return opened instanceof LittleCanaryError ? { ok: false, error: opened } : { ok: true, identity: opened.identity };
  }

  /** The identity once the engine is open, else null; never opens it. */
  get knownIdentity(): EmbeddedIdentity | null {
    return this.#engine?.identity ?? null;
  }

  async #open(): Promise<OpenEngine> {
    const module: EmbeddedEngineModule = await loadEmbeddedEngine(this.#loader);
    if (this.#pulled && (await stat(this.modelPath).catch(() => null)) === null) {
      throw new ConfigError(
        `the default embedded model is not in the model cache ${displayText(dirname(this.modelPath))}; run \`little-canary model pull\` ` +
          "(about 1.1 GB), or give --canary embedded:PATH.gguf --canary-sha256 HEX",
      );
    }
    const stamp = await verifyModelFile(this.modelPath, this.sha256);
    if (this.#disposed) throw new Disposed();
    const llama = await module.getLlama({ gpu: this.gpu, build: "never", logLevel: "error", progressLogs: false });
    let model: EngineModel | null = null;
    try {
      model = await llama.loadModel({ modelPath: this.modelPath, useMmap: false, ...(this.gpu === false ? { gpuLayers: 0 } : {}) });
      if (!sameStamp(stamp, await modelFileStamp(this.modelPath))) {
        throw new ConfigError("the model file changed while it was being loaded; the run is refused");
      }
      const wrapper = module.resolveChatWrapper(model);
      const templateTokens = this.#render(model, wrapper, "").length;
      const needed = embeddedRequiredContext({ templateTokens, windowChars: this.maxInputLength, maxTokens: this.maxTokens });
      const train = model.trainContextSize;
      if (this.contextSize !== null && this.contextSize > train) {
        throw new ConfigError(`the embedded context size ${this.contextSize} exceeds the model's trained context of ${train} tokens`);
      }
      const contextSize = this.contextSize ?? Math.min(needed, train);
      const context = await model.createContext({ contextSize, sequences: this.sequences, threads: this.threads });
      const sequences = Array.from({ length: this.sequences }, () => context.getSequence());
      const version = (await module.getModuleVersion?.().catch(() => null)) ?? "unknown";
      const identity: EmbeddedIdentity = Object.freeze({
        identity: "file-sha256",
        sha256: this.sha256,
        engine: "node-llama-cpp",
        engine_version: /^[\x21-\x7e]{1,64}$/.test(version) ? version : "unknown",
        context_size: Math.min(...sequences.map((s) => s.contextSize)),
        train_context_size: train,
        sequences: this.sequences,
      });
      const engine: OpenEngine = { llama, model, wrapper, context, identity };
      if (this.#disposed) {
        await this.#release(engine);
        throw new Disposed();
      }
      this.#engine = engine;
      this.#free = sequences;
      return engine;
    } catch (error) {
      if (this.#engine === null) {
        await model?.dispose().catch(() => undefined);
        await llama.dispose().catch(() => undefined);
      }
      throw error;
    }
  }

  /** The full prompt as the model's chat template renders it, as the model's own tokens. */
  #render(model: EngineModel, wrapper: EngineChatWrapper, userInput: string): EngineToken[] {
    const chatHistory = [
      { type: "system", text: this.systemPrompt },
      { type: "user", text: userInput },
      { type: "model", response: [] },
    ];
    return wrapper.generateContextState({ chatHistory }).contextText.tokenize(model.tokenizer);
  }

  /** Tokens of the templated prompt for `userInput` (opens the engine); null when it cannot open. */
  async countPromptTokens(userInput: string): Promise<number | null> {
    const opened = await this.open();
    const engine = this.#engine;
    if (!opened.ok || engine === null) return null;
    return this.#render(engine.model, engine.wrapper, userInput).length;
  }

  /** Sends `userInput` to the embedded canary; never throws for backend trouble. */
  async test(userInput: string): Promise<CanaryResult> {
    const result = startCanaryResult(this.model, this.#now);
    try {
      const opened = await this.open();
      const engine = this.#engine;
      if (!opened.ok || engine === null) return result.failure("unavailable", opened.ok ? "the embedded canary was disposed" : opened.error.message);
      const prompt = this.#render(engine.model, engine.wrapper, userInput);
      const contextSize = engine.identity.context_size;
      if (prompt.length + this.maxTokens > contextSize) {
        // The refusal names counts only, never prompt text.
        const needs = `the prompt needs ${prompt.length} tokens (counted with the model's own tokenizer) and ${this.maxTokens} for the reply`;
        const message = `${needs}, more than the embedded canary's context of ${contextSize} tokens; nothing was evaluated`;
        return result.failure("context_too_long", message, { prompt_count: prompt.length });
      }
      const generated = await this.#generate(engine, prompt);
      const metadata = { prompt_eval_count: prompt.length, prompt_count: prompt.length, eval_count: generated.tokens.length, context_size: contextSize };
      if (generated.kind === "timeout") return result.failure("timeout", `Canary timed out after ${formatSeconds(this.timeoutSeconds)}s`, metadata);
      if (generated.kind === "disposed") return result.failure("unavailable", "the embedded canary was disposed before it answered", metadata);
      if (generated.kind === "limit") return result.failure("output_limit", "the embedded canary's reply reached the reply budget before it ended", metadata);
      const content = engine.model.detokenize(generated.tokens, false);
      if (content.trim() === "") return result.failure("empty_response", "the embedded canary's reply was empty", metadata);
      return result.success(content, { ...metadata, context_check: "tokenizer" });
    } catch (error) {
      // The engine refuses work on a context that is being released: the check did not run.
      if (this.#disposed) return result.failure("unavailable", "the embedded canary was disposed before it answered");
      return result.failure("probe_exception", `Canary probe failed (${errorClassName(error)})`, {});
    }
  }

  /** Greedy evaluation of `prompt` on a free sequence, bounded by the reply budget and the deadline. */
  async #generate(engine: OpenEngine, prompt: EngineToken[]): Promise<{ kind: "done" | "limit" | "timeout" | "disposed"; tokens: EngineToken[] }> {
    const tokens: EngineToken[] = [];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.timeoutSeconds * 1000);
    });
    const waiting = this.#acquire();
    const sequence = await Promise.race([waiting.sequence, deadline]);
    if (sequence === "timeout" || sequence === null) {
      clearTimeout(timer);
      // A deadline passed while waiting gives up the place in the queue (or the sequence handed over at that moment): none is lost.
      waiting.cancel();
      return { kind: sequence === null ? "disposed" : "timeout", tokens };
    }
    const generator = sequence.evaluate(prompt, { temperature: this.temperature, ...(this.seed !== null ? { seed: this.seed } : {}) });
    let kind: "done" | "limit" | "timeout" | "disposed" = "limit";
    try {
      while (tokens.length < this.maxTokens) {
        const next = await Promise.race([generator.next(), deadline]);
        if (next === "timeout" || this.#disposed) {
          kind = next === "timeout" ? "timeout" : "disposed";
          break;
        }
        if (next.done === true || engine.model.isEogToken(next.value)) {
          kind = "done";
          break;
        }
        tokens.push(next.value);
      }
    } finally {
      clearTimeout(timer);
      // A sequence is reused only once its evaluation stopped and its history is cleared: no check sees another's tokens.
      void (async () => {
        await generator.return(undefined).catch(() => undefined);
        await sequence.clearHistory().catch(() => undefined);
        this.#release1(sequence);
      })();
    }
    return { kind, tokens };
  }

  /** A free sequence now, or a place in the queue for the next one; null once disposed. */
  #acquire(): { readonly sequence: Promise<EngineSequence | null>; cancel(): void } {
    if (this.#disposed) return { sequence: Promise.resolve(null), cancel: () => undefined };
    const free = this.#free.pop();
    if (free !== undefined) return { sequence: Promise.resolve(free), cancel: () => this.#release1(free) };
    const waiter: Waiter = { resolve: () => undefined, cancelled: false, given: null };
    const sequence = new Promise<EngineSequence | null>((resolve) => {
      waiter.resolve = resolve;
    });
    this.#waiting.push(waiter);
    return {
      sequence,
      cancel: () => {
        waiter.cancelled = true;
        if (waiter.given !== null) this.#release1(waiter.given);
      },
    };
  }

  #release1(sequence: EngineSequence): void {
    if (this.#disposed) return;
    for (let waiter = this.#waiting.shift(); waiter !== undefined; waiter = this.#waiting.shift()) {
      if (waiter.cancelled) continue;
      waiter.given = sequence;
      waiter.resolve(sequence);
      return;
    }
    this.#free.push(sequence);
  }

  /** True when the engine opens (module present, hash right, model loaded); never throws. */
  async isAvailable(): Promise<boolean> {
    return (await this.open()).ok && !this.#disposed;
  }

  /** Releases the context, the model and the engine; later checks are `unavailable`. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    OPEN_PROBES.delete(this);
    for (const waiter of this.#waiting.splice(0)) waiter.resolve(null);
    this.#free = [];
    const engine = this.#engine;
    this.#engine = null;
    if (engine !== null) await this.#release(engine);
  }

  async #release(engine: OpenEngine): Promise<void> {
    await engine.context.dispose().catch(() => undefined);
    await engine.model.dispose().catch(() => undefined);
    await engine.llama.dispose().catch(() => undefined);
  }

  /** Provider, model file name and SHA-256: never the full path. */
  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, sha256: this.sha256 };
  }

  override toString(): string {
    return `EmbeddedCanaryProbe(${this.model})`;
  }
}
