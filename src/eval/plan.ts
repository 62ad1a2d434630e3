// What `runEval` is asked for: its options, checked once into the run's plan, and the `run` header
// line (docs/eval.md) that records the plan with everything needed to compare two runs.
import { createHash } from "node:crypto";
import { UsageError } from "../core/errors.js";
import { VERSION } from "../core/version.js";
import { requestJson } from "../canary/chat-exchange.js";
import { DEFAULT_OLLAMA_URL } from "../canary/defaults.js";
import { endpointOrigin, validateServiceUrl } from "../canary/endpoint.js";
import type { FetchLike } from "../canary/http-call.js";
import { canaryKind, knownModelDigest } from "../canary/identity.js";
import { ollamaModelDigest } from "../canary/run-context.js";
import type { OpenAIContextProof } from "../canary/openai-probe.js";
import { nonEmpty, PIPELINE_LABELS, refuseJudgeBeside, urlBesidePool } from "../canary/pipeline-options.js";
import type { EndpointAttempt } from "../canary/pool.js";
import type { PoolEndpointSpec } from "../canary/pool-endpoints.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import type { EvalCase, LoadedCorpora } from "./corpus.js";
import { EVAL_MODES, type EvalMode } from "./score.js";
import type { EvalFs } from "./sink.js";
import { DEFAULT_EVAL_TIMEOUT_SECONDS } from "./timeout-default.js";

/** The schema name of the eval run record (JSONL). */
const EVAL_SCHEMA = "little-canary-eval/v1";
const DEFAULT_EVAL_THRESHOLD = 0.6;
const VERSION_PROBE_TIMEOUT_MS = 3_000;

/** Options of `runEval`; the Ollama URL, the OpenAI-compatible base URL, the API key (never written anywhere) and the clock as SecurityPipeline's. */
export interface EvalOptions extends Pick<SecurityPipelineOptions, "ollamaUrl" | "baseUrl" | "apiKey" | "now"> {
  /** Corpus files, in order (relative paths resolve against cwd). */
  readonly corpus: readonly string[];
  readonly idsFile?: string | null;
  /** Default: pipeline when a model is given, else structural-only. */
  readonly mode?: EvalMode;
  readonly model?: string | null;
  readonly judge?: string | null;
  /** The flag that gave `judge`, for refusals (`--judge-model` is the CLI's other name for it); default `--judge`. */
  readonly judgeFlag?: "--judge" | "--judge-model";
  readonly threshold?: number;
  /** Seconds per canary (and judge) call. */
  readonly timeoutSeconds?: number;
  readonly warmup?: boolean;
  /** The canary backend (default ollama); `openai` for vLLM and other OpenAI-compatible servers, at `baseUrl` (required unless pooled). */
  readonly provider?: "ollama" | "openai";
  /** A pool of canary endpoints in place of `ollamaUrl` (docs/scale.md); pinned before the first case. */
  readonly canaryEndpoints?: readonly PoolEndpointSpec[];
  /** Receives the pool's warnings (an endpoint taken out, a reply from another model). */
  readonly onPoolWarning?: (message: string) => void;
  /** Receives every attempt of every pooled check (the endpoint log). */
  readonly onPoolAttempt?: (attempt: EndpointAttempt) => void;
  /** JSONL output path (relative to cwd). */
  readonly output: string;
  /** Optional HTML report path (relative to cwd). */
  readonly report?: string | null;
  readonly cwd?: string;
  /** The HTTP client for the backends (defaults to global fetch). */
  readonly fetch?: FetchLike;
  /** Wall clock (timestamps). */
  readonly clock?: () => Date;
  /** Stops the run at once: a call in flight is dropped, not awaited. */
  readonly signal?: AbortSignal;
  /** Called after each case, with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Called once the header is written, before the first case runs. */
  readonly onHeader?: (header: RunHeader) => void;
  /**
   * Receives each warning line (`warning: …`, with its newline): a canary that could not be reached or
   * timed out, told once after the cases with the number it cost. Default: standard error.
   */
  readonly onWarning?: (line: string) => void;
  /** The file operations of the run record and report (default Node's); fault tests wrap them. */
  readonly fs?: EvalFs;
}

/**
 * The refusal of `flag` in a run without a canary: names the modes that run one (every mode but
 * structural-only, the default without --model) and the --model they need.
 */
function needsCanaryMode(flag: string): UsageError {
  const canaryModes = EVAL_MODES.filter((mode) => mode !== "structural-only").map((mode) => `--mode ${mode}`);
  return new UsageError(`${flag} requires a canary mode: ${canaryModes.join(" or ")}, with --model (structural-only runs no model)`);
}

/** The options of a run, checked once, with their defaults. */
export type ResolvedEval = ReturnType<typeof resolveOptions>;

/** The options checked once, with their defaults; throws UsageError naming the CLI flag. */
export function resolveOptions(options: EvalOptions) {
  const model = options.model ?? null;
  if (model !== null) nonEmpty("--model", model);
  const mode = options.mode ?? (model !== null ? "pipeline" : "structural-only");
  if (!EVAL_MODES.includes(mode)) throw new UsageError("--mode must be one of pipeline, model-only, structural-only");
  const canary = mode !== "structural-only";
  if (canary && model === null) throw new UsageError(`--model is required with --mode ${mode} (or use --mode structural-only)`);
  const judge = options.judge ?? null;
  const judgeFlag = options.judgeFlag ?? "--judge";
  if (judge !== null) nonEmpty(judgeFlag, judge);
  if (judge !== null && !canary) throw needsCanaryMode(judgeFlag);
  // Refused like --judge: without a canary there is no model to load, and a header saying a
  // warm-up ran would describe a run that never happened.
  const warmup = options.warmup === true;
  if (warmup && !canary) throw needsCanaryMode("--warmup");
  const threshold = options.threshold ?? DEFAULT_EVAL_THRESHOLD;
  if (typeof threshold !== "number" || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new UsageError("--threshold must be a number from 0 to 1");
  }
  const timeout = options.timeoutSeconds ?? DEFAULT_EVAL_TIMEOUT_SECONDS;
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) throw new UsageError("--timeout must be positive");
  if (typeof options.output !== "string") throw new UsageError("--output is required");
  if (options.output.trim() === "") throw new UsageError("--output must not be empty");
  // An empty --report (an unset shell variable) is a mistake, not "no report": the summary would
  // name a report that was never written.
  if (options.report !== undefined && options.report !== null && options.report.trim() === "") throw new UsageError("--report must not be empty");
  const ollamaUrl = options.ollamaUrl ?? DEFAULT_OLLAMA_URL;
  const provider = options.provider ?? "ollama";
  if (provider !== "ollama" && provider !== "openai") throw new UsageError("--provider must be ollama or openai");
  if (provider === "openai" && options.canaryEndpoints === undefined && (typeof options.baseUrl !== "string" || options.baseUrl.trim() === ""))
    throw new UsageError("--provider openai needs --base-url (or --canary-endpoint)");
  const pool = options.canaryEndpoints ?? null;
  if (pool !== null) {
    if (options.ollamaUrl !== undefined) throw urlBesidePool("--ollama-url", "--canary-endpoint");
    if (!canary) throw needsCanaryMode("--canary-endpoint");
    refuseJudgeBeside({ judge: judge !== null, pool: true, embedded: false }, { ...PIPELINE_LABELS, judgeModel: judgeFlag, canaryPool: "--canary-endpoint" });
  } else if (canary && provider === "ollama") validateServiceUrl(ollamaUrl, "--ollama-url");
  // Where the canary calls go: the Ollama URL or the OpenAI-compatible base URL.
  const backendUrl = provider === "openai" ? (options.baseUrl as string) : ollamaUrl;
  return {
    mode,
    model: canary ? model : null,
    judge,
    threshold,
    timeoutSeconds: canary ? timeout : null,
    warmup,
    ollamaUrl,
    provider,
    backendUrl,
    pool,
  } as const;
}

/** The backend's self-reported version (`/api/version`), a short safe token, or null. */
async function backendVersion(fetchFn: FetchLike, url: string): Promise<string | null> {
  const { object } = await requestJson(fetchFn, url, "/api/version", { timeoutMs: VERSION_PROBE_TIMEOUT_MS, maxBodyBytes: 4096 });
  const version = object?.["version"];
  return typeof version === "string" && /^[A-Za-z0-9._+-]{1,64}$/.test(version) ? version : null;
}

/** The `run` header line of an eval record: everything needed to compare two runs. */
export type RunHeader = Awaited<ReturnType<typeof buildHeader>>;

/** The header of a run of `cases` under `r`, once its backend is ready (`served`: what an OpenAI-compatible server showed). */
export async function buildHeader(
  r: ResolvedEval,
  pipeline: SecurityPipeline,
  cases: readonly EvalCase[],
  loaded: LoadedCorpora,
  idsFile: { path: string; sha256: string } | null,
  options: EvalOptions,
  startedAt: Date,
  served: OpenAIContextProof | null,
) {
  const canary = r.mode !== "structural-only";
  const fetchFn = options.fetch ?? globalThis.fetch;
  const modelDigest = canary ? await knownModelDigest(pipeline.probe) : null;
  const ollama = canary && r.provider === "ollama";
  const judgeTimeoutMs = (r.timeoutSeconds ?? DEFAULT_EVAL_TIMEOUT_SECONDS) * 1000;
  const judgeDigest = ollama && r.judge !== null ? await ollamaModelDigest(fetchFn, r.ollamaUrl, r.judge, judgeTimeoutMs) : null;
  const version = ollama ? await backendVersion(fetchFn, r.pool !== null ? (r.pool[0] as PoolEndpointSpec).url : r.ollamaUrl) : null;
  const o = pipeline.options;
  return {
    type: "run",
    schema: EVAL_SCHEMA,
    little_canary_version: VERSION,
    started_at: startedAt.toISOString(),
    mode: r.mode,
    model: r.model,
    model_digest: modelDigest,
    judge: r.judge,
    judge_digest: judgeDigest,
    threshold: r.threshold,
    timeout_s: r.timeoutSeconds,
    warmup: r.warmup,
    temperature: canary ? o.temperature : null,
    seed: canary ? o.seed : null,
    max_tokens: canary ? o.canaryMaxTokens : null,
    num_ctx: canary && o.provider === "ollama" ? o.canaryNumCtx : null,
    system_prompt_sha256: canary ? createHash("sha256").update(pipeline.systemPrompt, "utf8").digest("hex") : null,
    thinking: canary ? "disabled" : "not_applicable",
    // Redacted origin and reported version of the endpoint (null in structural-only); for an OpenAI-compatible server also what it reported.
    backend: canary
      ? {
          endpoint_origin: canaryKind(pipeline.probe) === "pool" ? pipeline.probe.endpointOrigin : endpointOrigin(r.backendUrl),
          version,
          ...(served !== null ? { provider: "openai", canary_server: served } : {}),
        }
      : null,
    runtime: { node: process.versions.node, platform: process.platform, arch: process.arch },
    corpus: loaded.files,
    ids_file: idsFile,
    total: cases.length,
    case_ids: cases.map((c) => c.id),
  } as const;
}
