// The canary identity a cached verdict is keyed by: everything that can change what a check of
// the same text returns (model and digest, prompt, sampling, analyzer or judge, structural rules,
// routing mode, windowing) and what kind of check it was; the key is the SHA-256 of its canonical
// JSON, so any change of any field is a miss. It is composed from the `identity()` that the parts
// of a pipeline this library built report (isGenuinePipeline, pipeline/pipeline.ts), trusted only from the library's
// own unmodified instances and only when it matches the pipeline's settings. Every doubt ends in
// "no identity" (a re-check), never in a verdict reused wrongly. docs/cache.md lists each field.
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { displayText } from "../core/display-text.js";
import { verifiedAnalyzerIdentity } from "../analysis/identity.js";
import { verifiedCanaryIdentity } from "../canary/identity.js";
import type { OpenAIContextProof } from "../canary/openai-probe.js";
import type { DegradedPolicy, PipelineMode } from "../canary/pipeline-options.js";
import type { CanaryProvider } from "../canary/types.js";
import { isGenuinePipeline, type SecurityPipeline } from "../pipeline/pipeline.js";
import { verifiedStructuralIdentity, type StructuralIdentity } from "../structural/filter.js";

/**
 * Version of how an identity is derived (its fields and their meaning). Part of every identity,
 * so changing the derivation turns every old entry into a miss; bump it with any such change,
 * and with any change of what a stored verdict holds (2: structural layers carry `matches`), so
 * an entry of the old shape is never reused as if it had the new one.
 */
export const CACHE_IDENTITY_FORMAT = 2;

/**
 * What one cached check covered: one ingest segment (a single window, at most segment_chars
 * code points) or one screen item (a whole text, screened in windows when it is long).
 */
type CheckScope = "ingest_segment" | "screen_item";

/** The regex analyzer as identified: its rule version and block threshold. */
interface RegexAnalysisIdentity {
  readonly method: "regex";
  readonly version: number;
  readonly block_threshold: number;
}

/** An LLM judge as identified: its rules, backend, model (with digest), prompt and sampling. */
interface JudgeAnalysisIdentity {
  readonly method: "llm_judge";
  readonly version: number;
  readonly provider: CanaryProvider;
  readonly model: string;
  readonly model_digest: string;
  readonly prompt_sha256: string;
  readonly num_ctx: number | null;
  readonly num_predict: number;
  readonly temperature: number;
  readonly seed: number | null;
}

/** Everything a cached verdict depends on (snake_case: it is stored and printed as JSON). */
export interface CanaryIdentity {
  readonly identity_format: number;
  readonly scope: CheckScope;
  readonly mode: PipelineMode;
  readonly provider: CanaryProvider;
  readonly model: string;
  readonly model_digest: string;
  readonly system_prompt_sha256: string;
  readonly num_ctx: number | null;
  readonly temperature: number;
  readonly seed: number | null;
  readonly num_predict: number;
  readonly analysis: RegexAnalysisIdentity | JudgeAnalysisIdentity;
  readonly structural: {
    readonly enabled: boolean;
    readonly rules_version: number;
    /** SHA-256 of the custom patterns (source, flags, reason, in order), or null without any. */
    readonly custom_patterns_sha256: string | null;
    readonly skip_canary_after_block: boolean;
  };
  readonly windows: {
    readonly max_input_length: number;
    readonly segment_overlap: number;
    readonly max_segments: number;
  };
  readonly on_degraded: DegradedPolicy;
  /**
   * Only for an OpenAI-compatible canary: what its server reported before the run (the weights
   * it loaded, its window and its fingerprint), so another server behind the same name is a miss.
   */
  readonly server?: {
    readonly root: string | null;
    readonly max_model_len: number;
    readonly system_fingerprint: string | null;
    /**
     * How each prompt was proven whole (`tokenize` or `conservative_bound`): the rules differ, so
     * a verdict passed under one (or under an older rule, before this field) is never reused.
     */
    readonly prompt_count: OpenAIContextProof["prompt_count"];
  };
  /**
   * A canary pool's behavioural fingerprint (canary/pool-identity.ts); absent for one endpoint.
   * Replies that differ on the fixed probes may differ on a check too, so a change is a miss.
   */
  readonly pool_fingerprint_sha256?: string;
  /**
   * Only for an embedded canary: the engine and the context every check ran in (the model itself
   * is `model_digest`, `sha256:` and its file's SHA-256). Another engine release is a miss.
   */
  readonly engine?: { readonly name: string; readonly version: string; readonly context_size: number };
}

/** An identity with its key (the SHA-256 of its canonical JSON). */
export interface CacheIdentity {
  readonly key: string;
  readonly identity: CanaryIdentity;
}

/** The identity of a pipeline, or why it has none (then the cache must not be used). */
export type IdentityOutcome = ({ readonly ok: true } & CacheIdentity) | { readonly ok: false; readonly reason: string };

/** What identifying a pipeline needs besides the pipeline itself. */
export interface IdentityOptions {
  /** What the cached checks are: ingest segments or screen items. */
  readonly scope: CheckScope;
  /** The canary model's digest, as the run's context gate learned it; null when unknown. */
  readonly modelDigest: string | null;
  /** The judge model's digest, for a pipeline with a judge; null or absent when unknown. */
  readonly judgeModelDigest?: string | null;
  /** For an OpenAI-compatible canary: what the run's context gate learned of its server. */
  readonly server?: OpenAIContextProof | null;
}

const SCOPES: readonly CheckScope[] = ["ingest_segment", "screen_item"];
// Ollama digests are 64 hex digits, sometimes prefixed ("sha256:"); anything printable and short.
const DIGEST = /^[\x21-\x7e]{1,256}$/;

/** The key of an identity: lowercase hex SHA-256 of its canonical JSON. */
export function identityKey(identity: CanaryIdentity): string {
  return sha256Hex(canonicalJsonUnchecked(identity));
}

/** `{ key, identity }` for an identity. */
export function cacheIdentity(identity: CanaryIdentity): CacheIdentity {
  return Object.freeze({ key: identityKey(identity), identity });
}

const refuse = (reason: string): IdentityOutcome => ({ ok: false, reason });

function customPatternsSha256(filter: StructuralIdentity): string | null {
  const patterns = filter.customPatterns.map((p) => ({ source: p.source, flags: p.flags, reason: p.reason }));
  return patterns.length === 0 ? null : sha256Hex(canonicalJsonUnchecked(patterns));
}

function judgeIdentity(pipeline: SecurityPipeline, digest: string | null | undefined): JudgeAnalysisIdentity | string {
  const o = pipeline.options;
  const j = verifiedAnalyzerIdentity(pipeline.analyzer, o.provider === "ollama" ? "ollama_judge" : "openai_judge");
  if (j === null || j.method !== "llm_judge") return "the pipeline's judge is not the library's own";
  if (j.model !== o.judgeModel || j.seed !== o.seed) return "the judge's settings differ from the pipeline's options";
  if (typeof digest !== "string" || !DIGEST.test(digest)) return "the judge model's digest is unknown";
  return {
    method: "llm_judge",
    version: j.version,
    provider: j.provider,
    model: j.model,
    model_digest: digest,
    prompt_sha256: j.promptSha256,
    num_ctx: j.numCtx,
    num_predict: j.maxTokens,
    temperature: j.temperature,
    seed: j.seed,
  };
}

function regexIdentity(pipeline: SecurityPipeline): RegexAnalysisIdentity | string {
  const a = verifiedAnalyzerIdentity(pipeline.analyzer, "regex");
  if (a === null || a.method !== "regex") return "the pipeline's analyzer is not the library's own";
  if (a.blockThreshold !== pipeline.options.blockThreshold || a.systemPrompt !== pipeline.systemPrompt) {
    return "the analyzer's settings differ from the pipeline's options";
  }
  return { method: "regex", version: a.version, block_threshold: a.blockThreshold };
}

/** A revision pinned in a served model name: `<repo>@<sha>` (docs/vllm.md). */
const PINNED_REVISION = /@([0-9a-f]{7,64})$/;

/**
 * What identifies an OpenAI-compatible server's model: such servers report no digest, so the
 * revision pinned in the served name (`--served-model-name <repo>@<sha>`) stands for it, and the
 * server's own report (root, max_model_len, system_fingerprint) is part of the identity. A name
 * without a pinned revision, or a server the gate did not identify, gives no identity.
 */
function servedIdentity(model: string, server: OpenAIContextProof | null): { digest: string; server: NonNullable<CanaryIdentity["server"]> } | string {
  if (server === null || server.served_model !== model) return "the canary server was not identified before the run";
  const pinned = PINNED_REVISION.exec(model);
  if (pinned === null) return "the served model name pins no revision (serve it as <repo>@<sha>, see docs/vllm.md)";
  return {
    digest: `revision:${pinned[1] as string}`,
    server: { root: server.root, max_model_len: server.max_model_len, system_fingerprint: server.system_fingerprint, prompt_count: server.prompt_count },
  };
}

/** Why a run with its canary off does not use a verdict cache (the file is not even opened). */
const CANARY_OFF = "the canary is disabled, so no check is exercised";

/**
 * The note for a cache file that a run whose canary is off (`canaryOn` false) does not open, or
 * null when the canary is on: nothing such a run checks could be stored or reused, so the file is
 * neither created nor changed.
 */
export function cacheNotOpened(path: string, canaryOn: boolean): string | null {
  return canaryOn ? null : `the verdict cache ${displayText(path)} is not used for this run: ${CANARY_OFF} (the file was not opened)`;
}

/** Whether `pipeline` is one this library built with its canary off (pipelineIdentity then refuses it, CANARY_OFF). */
export function canaryOff(pipeline: unknown): boolean {
  return isGenuinePipeline(pipeline) && !pipeline.options.enableCanary;
}

/**
 * The canary identity of `pipeline` for checks of `options.scope`, or why there is none: a
 * pipeline this library did not build (or whose parts were replaced or re-configured), a disabled
 * canary (nothing it checks could be cached), or an unknown model digest (one tag can name other weights).
 */
export function pipelineIdentity(pipeline: unknown, options: IdentityOptions): IdentityOutcome {
  if (!SCOPES.includes(options.scope)) return refuse("unknown check scope");
  if (!isGenuinePipeline(pipeline)) return refuse("the pipeline is not one this library built");
  const o = pipeline.options;
  if (!o.enableCanary) return refuse(CANARY_OFF);
  if (pipeline.hasCallbacks) return refuse("the pipeline has callbacks");
  const filter = verifiedStructuralIdentity(pipeline.structuralFilter);
  if (filter === null || filter.maxInputLength !== o.maxInputLength) return refuse("the pipeline's structural filter is not the library's own");
  // The backend reports its own identity; it is trusted only from the library's own, unmodified one.
  const p = verifiedCanaryIdentity(pipeline.probe, o.provider);
  if (typeof p === "string") return refuse(p);
  // A pool's endpoints share one set of settings (the pool refuses others) and one pinned identity.
  if (p.poolFingerprintSha256 === null) return refuse("the canary pool's identity is not pinned");
  const fingerprint = p.poolFingerprintSha256 ?? null;
  if (
    p.model !== o.canaryModel ||
    p.systemPrompt !== pipeline.systemPrompt ||
    p.maxTokens !== o.canaryMaxTokens ||
    p.temperature !== o.temperature ||
    p.seed !== o.seed ||
    p.numCtx !== (o.provider === "ollama" ? o.canaryNumCtx : null)
  ) {
    return refuse("the canary probe's settings differ from the pipeline's options");
  }
  const served = o.provider === "openai" ? servedIdentity(p.model, options.server ?? null) : null;
  if (typeof served === "string") return refuse(served);
  // An embedded model is its file: the SHA-256 checked when the engine opened, not a caller's word.
  const embedded = p.embedded ?? null;
  if (p.embedded === null) return refuse("the embedded canary has not been opened");
  const modelDigest = served !== null ? served.digest : embedded !== null ? `sha256:${embedded.sha256}` : options.modelDigest;
  if (typeof modelDigest !== "string" || !DIGEST.test(modelDigest)) return refuse("the canary model's digest is unknown");
  const analysis = o.judgeModel === null ? regexIdentity(pipeline) : judgeIdentity(pipeline, options.judgeModelDigest);
  if (typeof analysis === "string") return refuse(analysis);
  const identity: CanaryIdentity = {
    identity_format: CACHE_IDENTITY_FORMAT,
    scope: options.scope,
    mode: o.mode,
    provider: o.provider,
    model: p.model,
    model_digest: modelDigest,
    system_prompt_sha256: sha256Hex(p.systemPrompt),
    num_ctx: p.numCtx,
    temperature: p.temperature,
    seed: p.seed,
    num_predict: p.maxTokens,
    analysis,
    structural: {
      enabled: o.enableStructuralFilter,
      rules_version: filter.rulesVersion,
      custom_patterns_sha256: customPatternsSha256(filter),
      skip_canary_after_block: o.skipCanaryIfStructuralBlocks,
    },
    windows: { max_input_length: o.maxInputLength, segment_overlap: o.segmentOverlap, max_segments: o.maxSegments },
    on_degraded: o.onDegraded,
    ...(served !== null ? { server: served.server } : {}),
    ...(fingerprint !== null ? { pool_fingerprint_sha256: fingerprint } : {}),
    ...(embedded !== null ? { engine: { name: embedded.engine, version: embedded.engine_version, context_size: embedded.context_size } } : {}),
  };
  return { ok: true, ...cacheIdentity(identity) };
}
