// SecurityPipeline's options, their defaults and the rules that refuse them, checked once by `resolvePipelineOptions`
// at construction (and by a verb planning a run) before any text is screened. Here, below pipeline/, because the plan
// precedes the checks (pipeline/options.ts adds the callbacks, typed by the pipeline's verdict).
import { UsageError } from "../core/errors.js";
import { isPlainObject, refuseUnknownOptions } from "../core/guards.js";
import { requiredCanaryContext } from "./context.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import type { CanaryPoolOptions } from "./pool.js";
import type { PoolEndpointSpec } from "./pool-endpoints.js";
import type { CanaryProvider } from "./types.js";
import type { EmbeddedCanaryProbeOptions } from "./embedded-probe.js";
import { cachedModelPath, checkModelSha256, DEFAULT_EMBEDDED_MODEL, modelCacheDir } from "./embedded-models.js";
import { checkPositiveInteger, checkTemperature, checkTimeoutSeconds } from "./options.js";
import { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL, DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL } from "./defaults.js";
import { basename, resolve } from "node:path";

/** How the canary layer's findings route: `block` blocks, `advisory` warns, `full` does both by severity. */
export type PipelineMode = "block" | "advisory" | "full";
const PIPELINE_MODES: readonly PipelineMode[] = ["block", "advisory", "full"];
const PROVIDERS: readonly CanaryProvider[] = ["ollama", "openai", "embedded"];
/** What a degraded or unexercised verdict means: allowed (`fail_open`) or denied (`fail_closed`). */
export type DegradedPolicy = "fail_open" | "fail_closed";

/**
 * The embedded canary (node-llama-cpp, optional): the probe's model and engine settings, all optional. Without `modelPath`:
 * the default model from `little-canary model pull`, in `modelDir` (default: modelCacheDir); `sequences` defaults to 1.
 */
export interface EmbeddedCanaryOptions
  extends Partial<Pick<EmbeddedCanaryProbeOptions, "modelPath" | "sha256" | "contextSize" | "sequences" | "threads" | "gpu" | "loader">> {
  readonly modelDir?: string;
}

/** The embedded options with the model file resolved (`pulled`: the default model, from the pull cache). */
type ResolvedEmbeddedOptions = Required<Pick<EmbeddedCanaryOptions, "modelPath" | "sha256" | "contextSize" | "sequences" | "gpu">> & {
  readonly threads: number | undefined;
  readonly pulled: boolean;
};

/** What a pipeline warning is about (the second argument of `onWarning`). */
export type PipelineWarningCode = "canary_outage" | "callback_failed" | "audit_write_failed" | "custom_pattern_skipped";

/** The callbacks a pipeline calls after each check, one per outcome (pipeline/options.ts types them). */
export const PIPELINE_CALLBACK_NAMES = ["onPass", "onBlock", "onFlag", "onDegraded", "onUnexercised"] as const;

/** Options of SecurityPipeline but the type of its callbacks (SecurityPipelineOptions in pipeline/options.ts types them); validated at construction. */
export interface PipelineSettings {
  readonly mode?: PipelineMode;
  readonly provider?: CanaryProvider;
  readonly canaryModel?: string;
  /** Ollama endpoint. Default http://127.0.0.1:11434 (an IP, so "localhost" never resolves to ::1 first). */
  readonly ollamaUrl?: string;
  /** OpenAI-compatible base URL; default https://api.openai.com/v1. */
  readonly baseUrl?: string;
  /** The embedded canary's model and engine settings (with provider `embedded`). */
  readonly embedded?: EmbeddedCanaryOptions;
  /** API key for the OpenAI-compatible provider; never logged or serialized. */
  readonly apiKey?: string;
  readonly canarySystemPrompt?: string;
  /** Seconds per canary call (library default 10; the CLI uses 600 / LITTLE_CANARY_TIMEOUT). */
  readonly canaryTimeout?: number;
  readonly canaryMaxTokens?: number;
  /**
   * Context window sent to Ollama as num_ctx. Default: sized for the largest prompt the pipeline sends (a `maxInputLength`
   * segment, see canary/context.ts), one value for the pipeline's life. `null` sends none: the server's default may cut.
   */
  readonly canaryNumCtx?: number | null;
  readonly temperature?: number;
  readonly seed?: number;
  readonly blockThreshold?: number;
  /**
   * Code points per screened window. A longer text is never blocked for its length: it is
   * screened in windows of this size (see segments.ts). Default 4000.
   */
  readonly maxInputLength?: number;
  /** Code points shared by neighbouring windows of a long text. Default min(500, maxInputLength / 2). */
  readonly segmentOverlap?: number;
  /** Most windows one text may need; a longer text is degraded (`input_too_long`). Default 64. */
  readonly maxSegments?: number;
  readonly skipCanaryIfStructuralBlocks?: boolean;
  readonly enableStructuralFilter?: boolean;
  readonly enableCanary?: boolean;
  readonly customPatterns?: ReadonlyArray<{ pattern: string | RegExp; reason: string }>;
  readonly judgeModel?: string | null;
  readonly judgeTimeout?: number;
  readonly auditLogDir?: string | null;
  /** What a degraded or unexercised verdict means: allowed (default, as in the Python package) or denied. */
  readonly onDegraded?: DegradedPolicy;
  /** One function per outcome (PIPELINE_CALLBACK_NAMES), called with the verdict. */
  readonly callbacks?: object;
  /**
   * Receives operational warnings, one line each, never input text: the canary unreachable or timing out (once per outage,
   * `canary_outage`), a callback that threw, an audit line not written, a custom pattern skipped. Default: each line to
   * stderr, `little-canary: warning: …`.
   */
  readonly onWarning?: (message: string, code: PipelineWarningCode) => void;
  /**
   * Several endpoints serving the same canary model, used as one pool (canary/pool.ts) in place of `ollamaUrl` / `baseUrl`:
   * identity pinned before the first check, least-loaded dispatch, retries on another endpoint. Needs temperature 0, no judge.
   */
  readonly canaryPool?: CanaryPoolConfig;
  /** Injected transport for the canary and judge (tests); defaults to global fetch. */
  readonly fetch?: typeof fetch;
  /** Monotonic clock in milliseconds (tests); defaults to performance.now. */
  readonly now?: () => number;
}

/** The endpoints of a canary pool and where its events go (the pool's `onWarning` and `onAttempt`, the endpoint log of canary/pool-endpoints.ts). */
export interface CanaryPoolConfig extends Pick<CanaryPoolOptions, "onWarning" | "onAttempt"> {
  /** One or more endpoints (canary/pool-endpoints.ts parses the `URL#N` form). */
  readonly endpoints: readonly PoolEndpointSpec[];
}

/** The options that only build a pipeline's parts, and stay with it unresolved. */
type PartOption = "apiKey" | "canarySystemPrompt" | "customPatterns" | "auditLogDir" | "callbacks" | "onWarning" | "canaryPool" | "fetch" | "now";

/** Pipeline options with every default applied; `embedded` resolved, null for the other providers. */
export type ResolvedPipelineOptions = Required<Omit<PipelineSettings, PartOption | "embedded">> & { readonly embedded: ResolvedEmbeddedOptions | null };

/** How the rules below name options in a refusal: SecurityPipeline by its option names, the CLI by its flags, so each rule has one message. */
export type OptionLabels = Readonly<Record<keyof typeof PIPELINE_LABELS, string>>;

/** SecurityPipeline's own labels: its option names (the hash by its flag, as its format check names it). */
export const PIPELINE_LABELS = {
  canaryModel: "canaryModel",
  canaryPool: "canaryPool",
  // The embedded canary, and its model file, as the caller chooses them.
  embedded: "the embedded canary",
  modelPath: "embedded.modelPath",
  // The model file's SHA-256; then what a model path needs, and what that hash needs, as a refusal asks for them.
  canarySha256: "--canary-sha256",
  needsSha256: "the model file's SHA-256 (--canary-sha256 HEX)",
  needsPath: "a model path (--canary embedded:PATH)",
  judgeModel: "judgeModel",
};

/** A model name that is a non-empty string; throws UsageError naming it by `name`. */
export function nonEmpty(name: string, value: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`${name} must not be empty`);
  return value;
}

/** The refusal of a URL (`url`: its label) given beside a pool (`pool`): the pool's endpoints replace it. */
export function urlBesidePool(url: string, pool = "canaryPool"): UsageError {
  return new UsageError(`give ${url} or ${pool}, not both: the pool's endpoints replace ${url}`);
}

/** The embedded canary runs its model file in this process: a pool or a served model's name given beside it is refused. */
export function refuseServedCanary(given: { readonly pool: boolean; readonly canaryModel: string | undefined }, l: OptionLabels = PIPELINE_LABELS): void {
  if (given.pool) throw new UsageError(`${l.canaryPool} cannot be used with ${l.embedded}: it runs in this process`);
  if (given.canaryModel !== undefined) throw new UsageError(`${l.canaryModel} names a served model; the embedded canary's model is its file (${l.modelPath})`);
}

/** The embedded canary's model file comes with its SHA-256 (the model's identity), and a hash only with a file (the default model's is pinned). */
export function refuseUnpairedModelFile(given: { readonly path: boolean; readonly sha256: boolean }, l: OptionLabels = PIPELINE_LABELS): void {
  if (given.path && !given.sha256) throw new UsageError(`${l.modelPath} needs ${l.needsSha256}: the file's SHA-256 is the model's identity`);
  if (!given.path && given.sha256) throw new UsageError(`${l.canarySha256} needs ${l.needsPath}; the default model's hash is pinned`);
}

/**
 * An LLM judge is one model behind one URL: neither a pool's replicas nor the embedded canary can carry it. Checked by
 * SecurityPipeline under its option names, and by a verb first under its own labels, so the CLI names its flags.
 */
export function refuseJudgeBeside(
  given: { readonly judge: boolean; readonly pool: boolean; readonly embedded: boolean },
  l: OptionLabels = PIPELINE_LABELS,
): void {
  if (!given.judge) return;
  if (given.pool) throw new UsageError(`${l.judgeModel} cannot be used with ${l.canaryPool}: the judge is not pooled`);
  if (given.embedded) throw new UsageError(`${l.judgeModel} cannot be used with ${l.embedded}`);
}

function checkPoolOptions(options: PipelineSettings, provider: CanaryProvider, judgeModel: string | null): void {
  const endpoints = options.canaryPool?.endpoints;
  if (!Array.isArray(endpoints) || endpoints.length === 0) throw new UsageError("canaryPool needs at least one endpoint");
  if ((provider === "openai" ? options.baseUrl : options.ollamaUrl) !== undefined) throw urlBesidePool(provider === "openai" ? "baseUrl" : "ollamaUrl");
  refuseJudgeBeside({ judge: judgeModel !== null, pool: true, embedded: false });
  if ((options.temperature ?? 0) !== 0) throw new UsageError("canaryPool needs temperature 0: only then do replicas answer one request alike");
}

/** Every option SecurityPipeline takes; `satisfies` keeps the list equal to the interface. */
const PIPELINE_OPTION_KEYS = Object.keys({
  mode: true,
  provider: true,
  canaryModel: true,
  ollamaUrl: true,
  baseUrl: true,
  embedded: true,
  apiKey: true,
  canarySystemPrompt: true,
  canaryTimeout: true,
  canaryMaxTokens: true,
  canaryNumCtx: true,
  temperature: true,
  seed: true,
  blockThreshold: true,
  maxInputLength: true,
  segmentOverlap: true,
  maxSegments: true,
  skipCanaryIfStructuralBlocks: true,
  enableStructuralFilter: true,
  enableCanary: true,
  customPatterns: true,
  judgeModel: true,
  judgeTimeout: true,
  auditLogDir: true,
  onDegraded: true,
  callbacks: true,
  onWarning: true,
  canaryPool: true,
  fetch: true,
  now: true,
} satisfies Record<keyof PipelineSettings, true>);

const NESTED_OPTION_KEYS = {
  embedded: Object.keys({
    modelPath: true,
    sha256: true,
    modelDir: true,
    contextSize: true,
    sequences: true,
    threads: true,
    gpu: true,
    loader: true,
  } satisfies Record<keyof EmbeddedCanaryOptions, true>),
  canaryPool: Object.keys({ endpoints: true, onWarning: true, onAttempt: true } satisfies Record<keyof CanaryPoolConfig, true>),
  callbacks: PIPELINE_CALLBACK_NAMES,
} as const;

/** Validates `options` once (unknown keys, ranges, combinations) and applies every default; throws UsageError. */
export function resolvePipelineOptions(options: PipelineSettings): ResolvedPipelineOptions {
  // Unknown keys (top level, `embedded`, `canaryPool`, `callbacks`) are refused: a typo (`modee`) would otherwise run with a default its caller did not choose.
  const note = " (the options are listed in docs/api.md)";
  refuseUnknownOptions("SecurityPipeline", options, PIPELINE_OPTION_KEYS, note);
  for (const [name, known] of Object.entries(NESTED_OPTION_KEYS)) {
    const nested: unknown = options[name as keyof typeof NESTED_OPTION_KEYS];
    if (isPlainObject(nested)) refuseUnknownOptions(name, nested, known, note);
  }
  const mode = options.mode ?? "block";
  if (!PIPELINE_MODES.includes(mode)) throw new UsageError(`mode must be one of block, advisory, full; got '${String(mode).slice(0, 40)}'`);
  const provider = options.provider ?? "ollama";
  if (!PROVIDERS.includes(provider)) throw new UsageError(`provider must be one of ollama, openai, embedded; got '${String(provider).slice(0, 40)}'`);
  const embedded = provider === "embedded" ? resolveEmbedded(options) : null;
  const onDegraded = options.onDegraded ?? "fail_open";
  if (onDegraded !== "fail_open" && onDegraded !== "fail_closed") throw new UsageError("onDegraded must be 'fail_open' or 'fail_closed'");
  const judgeModel = options.judgeModel ?? null;
  if (judgeModel !== null) nonEmpty("judgeModel", judgeModel);
  if (options.canaryPool !== undefined) checkPoolOptions(options, provider, judgeModel);
  const maxTokens = checkPositiveInteger(options.canaryMaxTokens ?? 256, "canaryMaxTokens");
  const maxInputLength = checkPositiveInteger(options.maxInputLength ?? 4000, "maxInputLength");
  const segmentOverlap = options.segmentOverlap ?? Math.min(500, Math.floor(maxInputLength / 2));
  if (!Number.isSafeInteger(segmentOverlap) || segmentOverlap < 0 || segmentOverlap >= maxInputLength) {
    throw new UsageError("segmentOverlap must be an integer from 0 to maxInputLength - 1");
  }
  const maxSegments = checkPositiveInteger(options.maxSegments ?? 64, "maxSegments");
  const blockThreshold = options.blockThreshold ?? 0.6;
  if (typeof blockThreshold !== "number" || !(blockThreshold >= 0 && blockThreshold <= 1))
    throw new UsageError("blockThreshold must be a finite number from 0 to 1");
  const temperature = checkTemperature(options.temperature ?? 0);
  const seed = options.seed ?? 42;
  if (!Number.isSafeInteger(seed)) throw new UsageError("seed must be an integer");
  if (provider !== "ollama" && options.canaryNumCtx != null) throw new UsageError("canaryNumCtx is supported by the Ollama provider only");
  return {
    mode,
    provider,
    canaryModel:
      embedded !== null
        ? basename(embedded.modelPath).slice(0, 200)
        : nonEmpty("canaryModel", options.canaryModel ?? (provider === "openai" ? DEFAULT_OPENAI_MODEL : DEFAULT_CANARY_MODEL)),
    ollamaUrl: options.ollamaUrl ?? DEFAULT_OLLAMA_URL,
    baseUrl: options.baseUrl || DEFAULT_OPENAI_BASE_URL,
    canaryTimeout: checkTimeoutSeconds(options.canaryTimeout ?? 10, "canaryTimeout"),
    canaryMaxTokens: maxTokens,
    canaryNumCtx:
      provider === "ollama" && options.canaryNumCtx === undefined
        ? requiredCanaryContext({ segmentChars: maxInputLength, systemPrompt: options.canarySystemPrompt || DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens })
        : (options.canaryNumCtx ?? null),
    temperature,
    seed,
    blockThreshold,
    maxInputLength,
    segmentOverlap,
    maxSegments,
    skipCanaryIfStructuralBlocks: options.skipCanaryIfStructuralBlocks ?? true,
    enableStructuralFilter: options.enableStructuralFilter ?? true,
    enableCanary: options.enableCanary ?? true,
    judgeModel,
    judgeTimeout: checkTimeoutSeconds(options.judgeTimeout ?? 15, "judgeTimeout"),
    onDegraded,
    embedded,
  };
}

/**
 * The embedded model file: `embedded.modelPath` with its required `sha256` (the model's identity), else
 * the default model in the pull cache under its pinned hash; a pool, judge, model tag, URL or key is refused.
 */
function resolveEmbedded(options: PipelineSettings): ResolvedEmbeddedOptions {
  refuseServedCanary({ pool: options.canaryPool !== undefined, canaryModel: options.canaryModel });
  refuseJudgeBeside({ judge: options.judgeModel != null, pool: false, embedded: true });
  if (options.ollamaUrl !== undefined || options.baseUrl !== undefined || options.apiKey !== undefined) {
    throw new UsageError("the embedded canary takes no ollamaUrl, baseUrl or apiKey: it runs in this process");
  }
  const e = options.embedded ?? {};
  const pulled = e.modelPath === undefined;
  if (!pulled && (typeof e.modelPath !== "string" || e.modelPath.trim() === "")) throw new UsageError("embedded.modelPath must be a non-empty path");
  refuseUnpairedModelFile({ path: !pulled, sha256: e.sha256 !== undefined });
  const modelPath = pulled ? cachedModelPath(modelCacheDir(process.env, e.modelDir, process.cwd(), "embedded.modelDir")) : resolve(e.modelPath as string);
  const sha256 = pulled ? DEFAULT_EMBEDDED_MODEL.sha256 : checkModelSha256(e.sha256);
  const positive = (value: number | undefined, name: string): number | undefined => (value === undefined ? value : checkPositiveInteger(value, name));
  if (e.gpu !== undefined && e.gpu !== "auto" && e.gpu !== false) throw new UsageError("embedded.gpu must be 'auto' or false");
  return {
    modelPath,
    sha256,
    contextSize: e.contextSize == null ? null : (positive(e.contextSize, "embedded.contextSize") as number),
    sequences: positive(e.sequences, "embedded.sequences") ?? 1,
    threads: positive(e.threads, "embedded.threads"),
    gpu: e.gpu ?? "auto",
    pulled,
  };
}
