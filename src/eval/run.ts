// runEval: the library entry of `little-canary eval` (docs/eval.md). Cases are checked one at a
// time (so contention does not skew latencies), each flushed as one JSONL line.
import { DEFAULT_EVAL_TIMEOUT_SECONDS } from "./timeout-default.js";
import { UsageError, LittleCanaryError } from "../core/errors.js";
import { endpointOrigin, validateServiceUrl } from "../canary/endpoint.js";
import type { FetchLike } from "../canary/http-call.js";
import { DEFAULT_OLLAMA_URL } from "../canary/defaults.js";
import { canaryKind, knownModelDigest } from "../canary/identity.js";
import { ollamaModelDigest } from "../canary/ollama-inventory.js";
import { orAbort } from "../core/or-abort.js";
import { requestJson } from "../canary/chat-exchange.js";
import type { HealthReport } from "../pipeline/health.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";
import { nonEmpty, urlBesidePool } from "../canary/pipeline-options.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import { confirmCanaryModel } from "../pipeline/canary-model.js";
import type { OpenAIContextProof } from "../canary/openai-context-gate.js";
import type { EndpointAttempt } from "../canary/pool.js";
import type { PoolEndpointSpec } from "../canary/pool-endpoints.js";
import { roundHalfEven } from "../pipeline/round.js";
import { VERSION } from "../core/version.js";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { asciiJson } from "../core/inert-json.js";
import { loadCorpora, loadIdsFile, selectCases, type EvalCase, type ReadFileFn } from "./corpus.js";
import { EVAL_SCHEMA, jsonlLine, resultLine, type RunHeader } from "./records.js";
import { renderReport, type ReportCase } from "./report.js";
import { EVAL_MODES, scoreException, scoreVerdict, type CaseScore, type EvalMode } from "./score.js";
import { openFileSink, writeFileAtomically, type LineSink } from "./sink.js";
import { summarize, type EvalSummary } from "./summary.js";

const DEFAULT_EVAL_THRESHOLD = 0.6;
const VERSION_PROBE_TIMEOUT_MS = 3_000;
const WARMUP_TEXT = "Hello.";

/** Options of `runEval`; the Ollama URL, API key (never written anywhere) and clock as SecurityPipeline's. */
export interface EvalOptions extends Pick<SecurityPipelineOptions, "ollamaUrl" | "apiKey" | "now"> {
  /** Corpus files, in order (relative paths resolve against cwd). */
  readonly corpus: readonly string[];
  readonly idsFile?: string | null;
  /** Default: pipeline when a model is given, else structural-only. */
  readonly mode?: EvalMode;
  readonly model?: string | null;
  readonly judge?: string | null;
  readonly threshold?: number;
  /** Seconds per canary (and judge) call. */
  readonly timeoutSeconds?: number;
  readonly warmup?: boolean;
  /** The canary backend (default ollama); `openai` for vLLM and other OpenAI-compatible servers. */
  readonly provider?: "ollama" | "openai";
  /** The OpenAI-compatible base URL (with provider openai), e.g. http://127.0.0.1:8000/v1. */
  readonly baseUrl?: string;
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
  readonly signal?: AbortSignal;
  /** Called after each case, with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Called once the header is written, before the first case runs. */
  readonly onHeader?: (header: RunHeader) => void;
  readonly readFile?: ReadFileFn;
  /** Opens the JSONL record sink for `output` (tests replace it). */
  readonly openSink?: (path: string) => Promise<LineSink>;
}

/** A canary mode's backend (model or judge) is not ready; nothing was run. */
class BackendUnavailableError extends LittleCanaryError {
  override readonly name = "BackendUnavailableError";
  constructor(message: string) {
    super("backend", message);
  }
}

/** The run was stopped (signal) after `written` cases, or before the first (null); the JSONL has no completion line. */
class EvalInterruptedError extends LittleCanaryError {
  override readonly name = "EvalInterruptedError";
  constructor(written: number | null, total: number) {
    super(
      "input_refused",
      written === null
        ? "interrupted before the first case; no output was written"
        : `interrupted after ${written} of ${total} case${total === 1 ? "" : "s"}; the output has no completion line`,
    );
  }
}

type ResolvedEval = ReturnType<typeof resolveOptions>;

/** The options checked once, with their defaults. */
function resolveOptions(options: EvalOptions) {
  const model = options.model ?? null;
  if (model !== null) nonEmpty("--model", model);
  const mode = options.mode ?? (model !== null ? "pipeline" : "structural-only");
  if (!EVAL_MODES.includes(mode)) throw new UsageError("--mode must be one of pipeline, model-only, structural-only");
  const canary = mode !== "structural-only";
  if (canary && model === null) throw new UsageError(`--model is required with --mode ${mode} (or use --mode structural-only)`);
  const judge = options.judge ?? null;
  if (judge !== null) nonEmpty("--judge", judge);
  if (judge !== null && !canary) throw new UsageError("--judge requires a canary mode");
  const threshold = options.threshold ?? DEFAULT_EVAL_THRESHOLD;
  if (typeof threshold !== "number" || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new UsageError("--threshold must be a number from 0 to 1");
  }
  const timeout = options.timeoutSeconds ?? DEFAULT_EVAL_TIMEOUT_SECONDS;
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0) throw new UsageError("--timeout must be positive");
  if (typeof options.output !== "string" || options.output.trim() === "") throw new UsageError("--output is required");
  const ollamaUrl = options.ollamaUrl ?? DEFAULT_OLLAMA_URL;
  const provider = options.provider ?? "ollama";
  if (provider !== "ollama" && provider !== "openai") throw new UsageError("--provider must be ollama or openai");
  if (provider === "openai" && options.canaryEndpoints === undefined && (typeof options.baseUrl !== "string" || options.baseUrl.trim() === ""))
    throw new UsageError("--provider openai needs --base-url (or --canary-endpoint)");
  const pool = options.canaryEndpoints ?? null;
  if (pool !== null) {
    if (options.ollamaUrl !== undefined) throw urlBesidePool("--ollama-url", "--canary-endpoint");
    if (!canary) throw new UsageError("--canary-endpoint needs a canary mode");
    if (judge !== null) throw new UsageError("--judge cannot be used with --canary-endpoint: the judge is not pooled");
  } else if (canary && provider === "ollama") validateServiceUrl(ollamaUrl, "--ollama-url");
  // Where the canary calls go: the Ollama URL or the OpenAI-compatible base URL.
  const backendUrl = provider === "openai" ? (options.baseUrl as string) : ollamaUrl;
  return { mode, model: canary ? model : null, judge, threshold, timeoutSeconds: canary ? timeout : null, ollamaUrl, provider, backendUrl, pool } as const;
}

function buildPipeline(r: ResolvedEval, options: EvalOptions): SecurityPipeline {
  return new SecurityPipeline({
    mode: "block",
    enableCanary: r.mode !== "structural-only",
    enableStructuralFilter: r.mode !== "model-only",
    // Run the canary even on structurally blocked cases, so pipeline mode measures both layers.
    skipCanaryIfStructuralBlocks: false,
    blockThreshold: r.threshold,
    ...(r.pool !== null
      ? {
          canaryPool: {
            endpoints: r.pool,
            ...(options.onPoolWarning ? { onWarning: options.onPoolWarning } : {}),
            ...(options.onPoolAttempt ? { onAttempt: options.onPoolAttempt } : {}),
          },
        }
      : { ollamaUrl: r.ollamaUrl }),
    ...(r.provider === "openai"
      ? { provider: "openai" as const, ...(r.pool === null ? { baseUrl: r.backendUrl } : {}), ...(options.apiKey ? { apiKey: options.apiKey } : {}) }
      : {}),
    ...(r.model !== null ? { canaryModel: r.model } : {}),
    ...(r.timeoutSeconds !== null ? { canaryTimeout: r.timeoutSeconds, judgeTimeout: r.timeoutSeconds } : {}),
    ...(r.judge !== null ? { judgeModel: r.judge } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

/** One readable line naming what is missing and where; never the raw health report. */
function unavailableMessage(r: ResolvedEval, health: HealthReport): string {
  const origin = r.pool !== null ? r.pool.map((endpoint) => endpointOrigin(endpoint.url)).join(", ") : endpointOrigin(r.backendUrl);
  const missing: string[] = [];
  if (health.canary_available !== true && r.model !== null) missing.push(`canary model ${asciiJson(r.model)}`);
  if (r.judge !== null && health.judge_available !== true) missing.push(`judge model ${asciiJson(r.judge)}`);
  const what = missing.length > 0 ? missing.join(" and ") : "the backend";
  if (r.provider === "openai") return `${what} not available at ${origin}; nothing was run (is the server running, and does GET /v1/models answer?)`;
  const pulls = [r.model, r.judge].filter((tag): tag is string => tag !== null).map((tag) => `ollama pull ${asciiJson(tag)}`);
  return `${what} not available at ${origin}; nothing was run (is \`ollama serve\` running? ${pulls.join(", ")})`;
}

/** The backend's self-reported version (`/api/version`), a short safe token, or null. */
async function backendVersion(fetchFn: FetchLike, url: string): Promise<string | null> {
  const { object } = await requestJson(fetchFn, url, "/api/version", { timeoutMs: VERSION_PROBE_TIMEOUT_MS, maxBodyBytes: 4096 });
  const version = object?.["version"];
  return typeof version === "string" && /^[A-Za-z0-9._+-]{1,64}$/.test(version) ? version : null;
}

async function buildHeader(
  r: ResolvedEval,
  pipeline: SecurityPipeline,
  cases: readonly EvalCase[],
  loaded: Awaited<ReturnType<typeof loadCorpora>>,
  idsFile: { path: string; sha256: string } | null,
  options: EvalOptions,
  startedAt: Date,
  served: OpenAIContextProof | null,
): Promise<RunHeader> {
  const canary = r.mode !== "structural-only";
  const fetchFn = options.fetch ?? globalThis.fetch;
  let modelDigest: string | null = null;
  let judgeDigest: string | null = null;
  let version: string | null = null;
  if (canary) {
    modelDigest = await knownModelDigest(pipeline.probe);
    if (r.judge !== null && r.provider === "ollama") {
      judgeDigest = await ollamaModelDigest(fetchFn, r.ollamaUrl, r.judge, (r.timeoutSeconds ?? DEFAULT_EVAL_TIMEOUT_SECONDS) * 1000);
    }
    version = r.provider === "ollama" ? await backendVersion(fetchFn, r.pool !== null ? (r.pool[0] as PoolEndpointSpec).url : r.ollamaUrl) : null;
  }
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
    warmup: options.warmup === true,
    temperature: canary ? o.temperature : null,
    seed: canary ? o.seed : null,
    max_tokens: canary ? o.canaryMaxTokens : null,
    num_ctx: canary && o.provider === "ollama" ? o.canaryNumCtx : null,
    system_prompt_sha256: canary ? createHash("sha256").update(pipeline.systemPrompt, "utf8").digest("hex") : null,
    thinking: canary ? "disabled" : "not_applicable",
    backend: canary
      ? {
          endpoint_origin: canaryKind(pipeline.probe) === "pool" ? pipeline.probe.endpointOrigin : endpointOrigin(r.backendUrl),
          version,
          ...(served !== null ? { provider: "openai" as const, canary_server: served } : {}),
        }
      : null,
    runtime: { node: process.versions.node, platform: process.platform, arch: process.arch },
    corpus: loaded.files,
    ids_file: idsFile,
    total: cases.length,
    case_ids: cases.map((c) => c.id),
  };
}

/** Runs an evaluation (refused before any case when a canary mode's backend is not ready) and returns its summary. */
export async function runEval(options: EvalOptions): Promise<EvalSummary> {
  const r = resolveOptions(options);
  const cwd = options.cwd ?? process.cwd();
  const now = options.now ?? (() => performance.now());
  const clock = options.clock ?? (() => new Date());
  const loadOptions = { cwd, ...(options.readFile ? { readFile: options.readFile } : {}) };
  const loaded = await loadCorpora(options.corpus, loadOptions);
  const ids = options.idsFile ? await loadIdsFile(options.idsFile, loadOptions) : null;
  const cases = selectCases(loaded, ids);
  const pipeline = buildPipeline(r, options);

  const signal = options.signal;
  const beforeStart = <T>(work: Promise<T>): Promise<T> => orAbort(work, signal, () => new EvalInterruptedError(null, cases.length));
  let served: OpenAIContextProof | null = null;
  if (r.mode !== "structural-only") {
    // A canary model the server does not serve is named as such (canary-model.ts), not as an unready backend.
    await beforeStart(confirmCanaryModel(pipeline.probe));
    const health = await beforeStart(pipeline.healthCheck());
    if (!health.ready) throw new BackendUnavailableError(unavailableMessage(r, health));
    // A canary pool is pinned to one identity, and an OpenAI-compatible server must show it holds
    // a whole window, before the first case.
    served = await beforeStart(preflightCanary(pipeline));
  }
  if (options.warmup === true) await beforeStart(pipeline.check(WARMUP_TEXT));
  const header = await beforeStart(buildHeader(r, pipeline, cases, loaded, ids ? { path: ids.path, sha256: ids.sha256 } : null, options, clock(), served));

  const sink = await (options.openSink ?? openFileSink)(resolve(cwd, options.output));
  const finished: ReportCase[] = [];
  try {
    await sink.write(jsonlLine(header));
    options.onHeader?.(header);
    for (const [index, c] of cases.entries()) {
      const interrupted = (): Error => new EvalInterruptedError(index, cases.length);
      if (signal?.aborted) throw interrupted();
      const started = now();
      let score: CaseScore;
      try {
        score = scoreVerdict(await orAbort(pipeline.check(c.prompt), signal, interrupted), r.mode, c.kind);
      } catch (error) {
        if (error instanceof EvalInterruptedError) throw error;
        score = scoreException(error);
      }
      const elapsed = now() - started;
      const latencyMs = Number.isFinite(elapsed) && elapsed > 0 ? roundHalfEven(elapsed, 1) : 0;
      await sink.write(jsonlLine(resultLine(c, index, cases.length, score, latencyMs)));
      finished.push({ case: c, score, latencyMs });
      options.onProgress?.(index + 1, cases.length);
    }
    const summary = summarize(finished.map(({ case: c, score, latencyMs }) => ({ ...c, score, latencyMs })));
    await sink.write(jsonlLine({ type: "complete", finished_at: clock().toISOString(), summary }));
    await sink.close();
    if (options.report) await writeFileAtomically(resolve(cwd, options.report), renderReport(header, summary, finished));
    return summary;
  } finally {
    await sink.close();
  }
}
