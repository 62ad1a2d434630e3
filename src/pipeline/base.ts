// How SecurityPipeline checks a text: structural filter → canary probe → behavioural analysis (or
// LLM judge), then mode routing, the degraded policy, one callback and one audit line per check.
// A text longer than maxInputLength is screened in overlapping windows (segments.ts), never
// blocked for its length. This module loads no canary backend: the probe and analyzer are given
// (pipeline.ts builds them), so a pipeline whose canary is off (create.ts) never loads them.
// Contract: `check` never throws for backend trouble (it returns a degraded verdict); it throws
// only a TypeError for a non-string input. The instance is frozen after construction.
import { displayText, escapeUnsafeChars } from "../core/display-text.js";
import type { Analyzer, AnalysisMethod, AnalysisResult, AnalysisStatus, CanaryStatus } from "../analysis/types.js";
import type { CanaryProbe, CanaryResult } from "../canary/types.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import { StructuralFilter } from "../structural/filter.js";
import { StructuralOffload } from "../structural/offload.js";
import { AuditLogger, outcomeOf } from "./audit.js";
import { SecurityAdvisory } from "./advisory.js";
import { resolvePipelineOptions, type PipelineMode, type PipelineWarningCode, type ResolvedPipelineOptions } from "../canary/pipeline-options.js";
import type { PipelineCallbacks, SecurityPipelineOptions } from "./options.js";
import { mintVerdict, type AnalysisSnapshot, type BlockedBy, type CoverageReason, type LayerResult, type PipelineVerdict } from "./verdict.js";
import { combineSegments, verdictCoverage, type FinishState, type ScreenedSegment } from "./segments.js";
import { segmentSpans } from "../documents/segment-spans.js";
import { sliceSpans } from "../documents/segment-plan.js";
import { codePointLength } from "../core/codepoints.js";
import { orAbort } from "../core/or-abort.js";
import { refuseUnknownOptions } from "../core/guards.js";
import { UsageError } from "../core/errors.js";

/** A pipeline's canary backends: the probe and the analyzer of its replies. */
export interface CanaryClients {
  readonly probe: CanaryProbe;
  readonly analyzer: Analyzer;
}

/** How one check is made: `signal`, the caller's abort (see PipelineBase.check). */
export interface CheckOptions {
  readonly signal?: AbortSignal;
}

/** Every option of CheckOptions; `satisfies` keeps the list equal to the interface. */
const CHECK_OPTION_KEYS: readonly string[] = Object.keys({ signal: true } satisfies Record<keyof CheckOptions, true>);

/** The checks of SecurityPipeline (pipeline.ts), given its canary backends (null only with the canary off: create.ts). */
export class PipelineBase {
  readonly options: ResolvedPipelineOptions;
  readonly structuralFilter: StructuralFilter;
  readonly probe: CanaryProbe | null;
  readonly analyzer: Analyzer | null;
  readonly systemPrompt: string;
  readonly #callbacks: PipelineCallbacks;
  readonly #audit: AuditLogger | null;
  readonly #now: () => number;
  readonly #warn: (message: string, code: PipelineWarningCode) => void;
  /** The canary's last call found it unreachable or timing out (one warning per outage). */
  #canaryOut = false;
  /** Where the structural checks run: in-process, or on worker threads while checks overlap (structural/offload.ts). */
  readonly #structural: StructuralOffload;
  /** Checks started and not yet finished: more than one means they overlap. */
  #inFlight = 0;

  /** Validates `options` (UsageError), then builds the backends with `clients` (null: the canary must be off). */
  constructor(options: SecurityPipelineOptions, clients: ((resolved: ResolvedPipelineOptions, systemPrompt: string) => CanaryClients) | null) {
    const resolved = resolvePipelineOptions(options);
    if (resolved.enableCanary && clients === null) throw new TypeError("a pipeline whose canary is on needs its backends: use SecurityPipeline");
    this.options = Object.freeze(resolved);
    this.systemPrompt = options.canarySystemPrompt || DEFAULT_CANARY_SYSTEM_PROMPT;
    this.#now = options.now ?? (() => performance.now());
    const sink = options.onWarning ?? warnOnStderr;
    // A warning sink that throws must not fail a check (check never throws for trouble).
    this.#warn = (message, code) => {
      try {
        sink(message, code);
      } catch {
        // Nowhere left to report it.
      }
    };
    this.#callbacks = Object.freeze({ ...(options.callbacks ?? {}) });
    this.structuralFilter = new StructuralFilter({
      maxInputLength: resolved.maxInputLength,
      ...(options.customPatterns ? { customPatterns: options.customPatterns } : {}),
      onWarning: (message) => this.#warn(message, "custom_pattern_skipped"),
    });
    this.#structural = new StructuralOffload(this.structuralFilter);
    const built = clients?.(resolved, this.systemPrompt) ?? null;
    this.probe = built?.probe ?? null;
    this.analyzer = built?.analyzer ?? null;
    this.#audit = options.auditLogDir ? new AuditLogger(options.auditLogDir, (message) => this.#warn(message, "audit_write_failed")) : null;
    Object.freeze(this);
  }

  /** True when callbacks were configured (ingest refuses such pipelines: callbacks see verdicts). */
  get hasCallbacks(): boolean {
    return Object.values(this.#callbacks).some((callback) => typeof callback === "function");
  }

  /**
   * Public, secret-free description of the pipeline (manifest `pipeline`, `/health`);
   * `structuralRulesVersion` is the built-in structural rules' version, or null with the layer off.
   */
  describe() {
    const o = this.options;
    return {
      mode: o.mode,
      provider: o.enableCanary ? o.provider : null,
      canaryModel: o.enableCanary ? o.canaryModel : null,
      analysisMethod: o.judgeModel !== null ? "judge" : "regex",
      structuralFilter: o.enableStructuralFilter,
      structuralRulesVersion: o.enableStructuralFilter ? this.structuralFilter.identity().rulesVersion : null,
      canaryEnabled: o.enableCanary,
      canaryNumCtx: o.enableCanary && o.provider === "ollama" ? o.canaryNumCtx : null,
      canaryTimeout: o.enableCanary ? o.canaryTimeout : null,
      onDegraded: o.onDegraded,
    } as const;
  }

  /**
   * Screens `text` and resolves to its verdict; a layer that did not run is reported as degraded or
   * unexercised, never as clean. `options.signal`: the caller's abort (a run interrupted, a client
   * gone). It abandons the canary call in flight (its connection closed; an embedded canary's
   * call runs to its end) and the check rejects with the signal's reason instead of a verdict, so
   * an abandoned call is never reported as the canary's outage.
   */
  async check(text: string, options: CheckOptions = {}): Promise<PipelineVerdict> {
    // UsageError (code "usage"), as for an unknown option: a caller catching LittleCanaryError sees these too.
    if (typeof text !== "string") throw new UsageError(`text must be a string, got ${describeType(text)}`);
    refuseUnknownOptions("check", options, CHECK_OPTION_KEYS);
    const { signal } = options;
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new UsageError(`check option signal must be an AbortSignal, got ${describeType(signal)}`);
    signal?.throwIfAborted();
    this.#inFlight++;
    try {
      const verdict = await this.#check(text, signal);
      signal?.throwIfAborted();
      return verdict;
    } finally {
      this.#inFlight--;
    }
  }

  async #check(text: string, signal: AbortSignal | undefined): Promise<PipelineVerdict> {
    const o = this.options;
    const started = this.#now();
    // A text has no more code points than UTF-16 units, so a short one needs no count.
    const length = text.length <= o.maxInputLength ? text.length : codePointLength(text);
    if (length <= o.maxInputLength) return this.#finish(text, started, await this.#evaluate(text, { kind: "run" }, signal));
    // Length is never a detection: a long text is screened window by window (segments.ts).
    const spans = segmentSpans(length, o.maxInputLength, o.segmentOverlap);
    const slices = sliceSpans(text, spans);
    const overBudget = spans.length > o.maxSegments;
    // skipCanaryIfStructuralBlocks holds for the text as a whole: a structural block in any
    // window (outside advisory mode) spares the canary every window.
    const structurallyBlocked =
      o.enableStructuralFilter && o.mode !== "advisory" && o.skipCanaryIfStructuralBlocks && slices.some((slice) => this.structuralFilter.check(slice).blocked);
    const canaryPlan: CanaryPlan = overBudget
      ? { kind: "over_budget", needed: spans.length }
      : structurallyBlocked
        ? { kind: "skip_after_block" }
        : { kind: "run" };
    const screened: ScreenedSegment[] = [];
    for (const [index, span] of spans.entries()) {
      signal?.throwIfAborted();
      screened.push({ start: span.start, end: span.end, state: await this.#evaluate(slices[index] as string, canaryPlan, signal) });
    }
    return this.#finish(text, started, combineSegments(screened));
  }

  /** Screens one window (a whole short text, or one window of a long one) without finishing it. */
  async #evaluate(text: string, canaryPlan: CanaryPlan, signal: AbortSignal | undefined): Promise<FinishState> {
    const o = this.options;
    const layers: LayerResult[] = [];
    let blockedBy: BlockedBy | null = null;
    let advisory = SecurityAdvisory.none();
    // The canary layer of a window whose canary is not called (disabled, or after a block).
    const skipped = (details: string, status: CanaryStatus, summaryOverride?: string): FinishState => {
      layers.push(canaryLayer("skipped", details));
      const unexercised = { canaryStatus: status, analysisMethod: "none", analysisStatus: "not_applicable", risk: null } as const;
      return { layers, blockedBy, advisory, degraded: false, ...unexercised, ...(summaryOverride !== undefined ? { summaryOverride } : {}) };
    };

    if (o.enableStructuralFilter) {
      const t0 = this.#now();
      const checked = this.#structural.check(text, this.#inFlight > 1);
      const filtered = checked instanceof Promise ? await checked : checked;
      const reasons = filtered.reasons;
      layers.push({
        name: "structural_filter",
        passed: !filtered.blocked,
        latency: seconds(this.#now() - t0),
        details: filtered.blocked ? reasons.join("; ") : "Clean",
        status: filtered.blocked ? "blocked" : "passed",
        coverageReason: null,
        snapshot: null,
        signals: reasons,
        ...(filtered.matches.length > 0 ? { matches: filtered.matches.map((m) => ({ segment: 0, ...m })) } : {}),
      });
      if (filtered.blocked) {
        if (o.mode === "advisory") {
          advisory = new SecurityAdvisory(true, "high", reasons.slice(0, 3), `Structural filter: ${reasons.slice(0, 2).join("; ")}`);
        } else {
          blockedBy = "structural_filter";
          if (o.skipCanaryIfStructuralBlocks) {
            const [details, status] = o.enableCanary
              ? (["Skipped after structural filter block.", "skipped_after_block"] as const)
              : (["Canary disabled by configuration.", "disabled"] as const);
            return skipped(details, status, `Blocked by structural filter: ${reasons.join("; ")}`);
          }
        }
      }
    }

    if (!o.enableCanary) return skipped("Canary disabled by configuration.", "disabled");
    if (canaryPlan.kind === "skip_after_block") return skipped("Skipped after structural filter block in another segment.", "skipped_after_block");
    const analysisMethod = o.judgeModel !== null ? "llm_judge" : "regex";
    if (canaryPlan.kind === "over_budget") {
      const details =
        `Canary not run: the text needs ${canaryPlan.needed} segments of ${o.maxInputLength} code points, more than maxSegments (${o.maxSegments}); ` +
        "split the text or raise maxSegments.";
      layers.push(canaryLayer("failed", details, "input_too_long"));
      return { layers, blockedBy, advisory, degraded: true, canaryStatus: "failed", analysisMethod, analysisStatus: "not_applicable", risk: null };
    }
    const t1 = this.#now();
    const outcome = await this.#runCanary(text, signal);
    // An abandoned call says nothing of the canary: check() rejects instead of watching it.
    signal?.throwIfAborted();
    const latency = seconds(this.#now() - t1);
    this.#watchCanary(outcome);
    if (outcome.kind === "failed") {
      layers.push(canaryLayer("failed", this.#failureDetails(outcome), outcome.coverageReason, latency, outcome.snapshot));
      const { canaryStatus, analysisStatus } = outcome;
      return { layers, blockedBy, advisory, degraded: true, canaryStatus, analysisMethod, analysisStatus, risk: null, promptEvalCount: null };
    }
    const snap = outcome.snapshot;
    // Signal categories in first-seen order, each once.
    const names = [...new Set(snap.signals.map((signal) => signal.category))];
    const listed = names.length > 0 ? names.join(", ") : "none";
    const details = snap.shouldBlock
      ? `Behavioral analysis blocked; signals: ${listed}.`
      : (snap.riskScore ?? 0) > 0
        ? `Behavioral risk ${(snap.riskScore ?? 0).toFixed(2)}; signals: ${listed}.`
        : "No behavioral anomalies detected.";
    const status = snap.shouldBlock ? "blocked" : "passed";
    layers.push({ name: "canary_probe", passed: !snap.shouldBlock, latency, details, status, coverageReason: null, snapshot: snap, signals: names });
    const routed = routeExercised(o.mode, snap, names, details);
    if (routed.block) blockedBy ??= "canary_probe";
    return {
      layers,
      blockedBy,
      advisory: SecurityAdvisory.merge(advisory, routed.advisory),
      degraded: false,
      canaryStatus: "exercised",
      analysisMethod: snap.analysisMethod,
      analysisStatus: "exercised",
      risk: snap.riskScore,
      promptEvalCount: outcome.promptEvalCount,
    };
  }

  async #runCanary(text: string, signal: AbortSignal | undefined): Promise<CanaryOutcome> {
    // Set whenever the canary is on (the constructor refuses it otherwise).
    const { probe, analyzer } = this as CanaryClients;
    const failed = (coverageReason: CoverageReason, fields: Partial<FailedCanary> = {}): FailedCanary => {
      const none = { canaryStatus: "failed", analysisStatus: "not_applicable", threw: false, snapshot: null, timeout: false } as const;
      return { kind: "failed", ...none, coverageReason, ...fields };
    };
    const analysisFailed = { canaryStatus: "exercised", analysisStatus: "failed", analysisFailed: true } as const;
    let result: CanaryResult;
    try {
      // The chat request takes the abort itself; a step before it (a warm-up shared with other
      // checks, a vLLM /tokenize count, a wait for a pool slot) is not waited for once it aborts.
      result = await orAbort(probe.test(text, signal), signal);
    } catch {
      return failed("probe_exception", { threw: true });
    }
    if (!result.success) return failed(result.failureCode ?? "probe_failed", { timeout: result.failureCode === "timeout" });
    let analysis: AnalysisResult;
    try {
      analysis = await orAbort(analyzer.analyze(text, result), signal);
    } catch {
      return failed("analysis_failed", analysisFailed);
    }
    const snap = snapshotOf(analysis);
    if (snap.degraded || snap.analysisStatus !== "exercised" || snap.riskScore === null || snap.canaryStatus !== "exercised") {
      const statuses = {
        canaryStatus: snap.canaryStatus === "exercised" ? "exercised" : "failed",
        analysisStatus: snap.analysisStatus === "exercised" ? "failed" : snap.analysisStatus,
      } as const;
      return failed("analysis_failed", { ...analysisFailed, ...statuses, snapshot: snap });
    }
    return { kind: "exercised", snapshot: snap, promptEvalCount: promptEvalCountOf(result) };
  }

  /**
   * Warns once when the canary becomes unreachable or starts timing out: its checks are then
   * not screened by the canary, and under the fail-open default they still read `safe: true`.
   * The next call that reaches it ends the outage, so a later one is warned about again.
   */
  #watchCanary(outcome: CanaryOutcome): void {
    const reason = outcome.kind === "failed" ? outcome.coverageReason : null;
    if (reason !== "unavailable" && reason !== "timeout") {
      this.#canaryOut = false;
      return;
    }
    if (this.#canaryOut) return;
    this.#canaryOut = true;
    const o = this.options;
    const { probe } = this as CanaryClients;
    const where = `at ${probe.endpointOrigin} (model ${displayText(probe.model)})`;
    const what = reason === "timeout" ? `canary ${where} did not answer within ${String(o.canaryTimeout)}s (timeout)` : `canary unreachable ${where}`;
    const routing =
      o.onDegraded === "fail_closed"
        ? "they are denied (fail-closed)"
        : 'they still read safe: true under the fail-open default: trust only safe && coverage === "complete", or run fail-closed (--fail-closed; library: onDegraded: "fail_closed")';
    this.#warn(`${what}; checks are not screened by the canary until it answers again (their coverage is not "complete"), and ${routing}`, "canary_outage");
  }

  #failureDetails(outcome: FailedCanary): string {
    const routing = this.options.onDegraded === "fail_closed" ? "fail-closed routing applies" : "fail-open routing applies";
    if (outcome.analysisFailed) return `Behavioral analysis failed; ${routing}.`;
    if (outcome.threw) return `Canary probe failed unexpectedly; ${routing}.`;
    let details = `Canary probe failed; ${routing}.`;
    if (outcome.timeout) {
      details +=
        ` The canary call timed out after ${String(this.options.canaryTimeout)}s;` +
        " raise the limit with --timeout SECONDS, LITTLE_CANARY_TIMEOUT or the canaryTimeout option.";
    }
    return details;
  }

  #finish(text: string, started: number, state: FinishState): PipelineVerdict {
    const o = this.options;
    const exercised = state.canaryStatus === "exercised" && state.analysisStatus === "exercised";
    let blockedBy = state.blockedBy;
    if (blockedBy === null && o.onDegraded === "fail_closed" && (state.degraded || !exercised)) {
      blockedBy = "fail_closed";
    }
    const safe = blockedBy === null;
    const totalLatency = seconds(this.#now() - started);
    const t = totalLatency.toFixed(3);
    let summary: string;
    if (state.summaryOverride !== undefined) summary = state.summaryOverride;
    else if (blockedBy === "fail_closed") {
      summary = state.degraded
        ? `Input denied by fail-closed policy because behavioral coverage failed; not inspected (${t}s)`
        : `Input denied by fail-closed policy because behavioral canary screening did not run (${t}s)`;
    } else if (state.degraded && safe) {
      summary = `Input allowed by fail-open policy because behavioral coverage failed; not inspected-safe (${t}s)`;
    } else if (state.degraded) summary = `Input blocked by ${blockedBy}; behavioral coverage also failed (${t}s)`;
    else if (!safe) summary = `Input blocked by ${blockedBy} (${t}s)`;
    else if (state.advisory.flagged) summary = `Input allowed with security advisory (${t}s)`;
    else if (exercised) summary = `Input passed all enabled security layers; behavioral probe exercised (${t}s)`;
    else summary = `Input allowed without behavioral canary screening (${t}s)`;

    const verdict = mintVerdict(text, {
      safe,
      totalLatency,
      layers: state.layers,
      blockedBy,
      summary,
      canaryRiskScore: state.risk,
      advisory: state.advisory,
      degraded: state.degraded,
      canaryStatus: state.canaryStatus,
      analysisMethod: state.analysisMethod,
      analysisStatus: state.analysisStatus,
      promptEvalCount: state.promptEvalCount ?? null,
      segments: state.segments ?? null,
      coverage: state.coverage ?? verdictCoverage([state]),
    });
    this.#fireCallback(verdict);
    this.#audit?.record(text, verdict);
    return verdict;
  }

  #fireCallback(verdict: PipelineVerdict): void {
    const callback = this.#callbacks[CALLBACK_OF[outcomeOf(verdict)]];
    if (!callback) return;
    const failed = (error: unknown): void => this.#warn(`pipeline callback failed (${errorClass(error)})`, "callback_failed");
    try {
      const returned: unknown = callback(verdict);
      // An async callback's rejection would otherwise be unhandled, which ends the host process.
      if (isThenable(returned)) returned.then(undefined, failed);
    } catch (error) {
      failed(error);
    }
  }
}

/** Whether a callback returned a promise (or another thenable), whose rejection must be caught. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** The callback each outcome fires. */
const CALLBACK_OF = { blocked: "onBlock", degraded: "onDegraded", flagged: "onFlag", unexercised: "onUnexercised", safe: "onPass" } as const;

/** Whether a window's canary runs: normally, skipped for a block elsewhere, or not at all (too many windows). */
type CanaryPlan = { readonly kind: "run" } | { readonly kind: "skip_after_block" } | { readonly kind: "over_budget"; readonly needed: number };

interface FailedCanary {
  readonly kind: "failed";
  readonly canaryStatus: CanaryStatus;
  readonly analysisStatus: AnalysisStatus;
  readonly coverageReason: CoverageReason;
  readonly threw: boolean;
  readonly timeout: boolean;
  readonly analysisFailed?: boolean;
  readonly snapshot: AnalysisSnapshot | null;
}

type CanaryOutcome = { readonly kind: "exercised"; readonly snapshot: AnalysisSnapshot; readonly promptEvalCount: number | null } | FailedCanary;

/** The prompt tokens the backend reported: Ollama's prompt_eval_count, an OpenAI server's usage.prompt_tokens. */
function promptEvalCountOf(result: CanaryResult): number | null {
  const value = result.metadata.prompt_eval_count ?? result.metadata.prompt_tokens;
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The default `onWarning`: one line on stderr (stdout may carry the caller's data). */
function warnOnStderr(message: string): void {
  // A message names things a caller or a server chose (a model, a path): one line, no control characters.
  process.stderr.write(`little-canary: warning: ${escapeUnsafeChars(message)}\n`);
}

function seconds(ms: number): number {
  const value = ms / 1000;
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function errorClass(error: unknown): string {
  return error instanceof Error ? error.constructor.name : typeof error;
}

/** The canary layer of a check that did not call the canary (`skipped`: disabled, or after a block) or got no coverage from it (`failed`, and why). */
function canaryLayer(
  status: "skipped" | "failed",
  details: string,
  coverageReason: CoverageReason | null = null,
  latency = 0,
  snapshot: AnalysisSnapshot | null = null,
): LayerResult {
  return { name: "canary_probe", passed: null, latency, details, status, coverageReason, snapshot, signals: [] };
}

/** Whether an exercised analysis blocks in `mode`, and the advisory it leaves otherwise. */
function routeExercised(mode: PipelineMode, snap: AnalysisSnapshot, names: readonly string[], details: string): { block: boolean; advisory: SecurityAdvisory } {
  if (snap.shouldBlock && snap.hardBlocked) {
    if (mode === "advisory") return { block: false, advisory: new SecurityAdvisory(true, "high", names, details) };
    return { block: true, advisory: SecurityAdvisory.none() };
  }
  if (snap.shouldBlock) {
    if (mode === "block") return { block: true, advisory: SecurityAdvisory.none() };
    return { block: false, advisory: new SecurityAdvisory(true, "medium", names, details) };
  }
  if ((snap.riskScore ?? 0) > 0 && names.length > 0) {
    return { block: false, advisory: new SecurityAdvisory(true, "low", names, `Low-confidence signals: ${names.join(", ")}`) };
  }
  return { block: false, advisory: SecurityAdvisory.none() };
}

// The analyzer's categories (analysis/signals.ts) and the judge's, restated: the lean pipeline
// imports no analyzer code (test/pipeline/create.test.ts).
const KNOWN_CATEGORIES = new Set([
  "persona_shift",
  "instruction_echo",
  "system_prompt_leak",
  "refusal_collapse",
  "tool_hallucination",
  "format_anomaly",
  "semantic_discontinuity",
  "attack_compliance",
  "canary_compromise",
  "llm_judge",
]);
const CANARY_STATUSES: readonly CanaryStatus[] = ["exercised", "failed", "disabled", "skipped_after_block"];
const ANALYSIS_METHODS: readonly AnalysisMethod[] = ["regex", "llm_judge", "none"];
const ANALYSIS_STATUSES: readonly AnalysisStatus[] = ["exercised", "failed", "not_applicable"];

/**
 * The privacy-preserving view of an analysis, all that layers and callbacks ever see of the
 * canary: categories, severities and statuses, no reply, prompt or evidence. Values an analyzer
 * got wrong are normalised, never trusted.
 */
function snapshotOf(analysis: AnalysisResult): AnalysisSnapshot {
  const finiteOrNull = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
  return Object.freeze({
    riskScore: finiteOrNull(analysis.riskScore),
    shouldBlock: analysis.shouldBlock === true,
    signals: Object.freeze(
      (Array.isArray(analysis.signals) ? analysis.signals : []).map((signal) =>
        Object.freeze({
          category: KNOWN_CATEGORIES.has(signal.category) ? signal.category : "unknown",
          severity: finiteOrNull(signal.severity),
        }),
      ),
    ),
    hardBlocked: analysis.hardBlocked === true,
    degraded: analysis.degraded === true,
    canaryStatus: CANARY_STATUSES.includes(analysis.canaryStatus) ? analysis.canaryStatus : "failed",
    analysisMethod: ANALYSIS_METHODS.includes(analysis.analysisMethod) ? analysis.analysisMethod : "none",
    analysisStatus: ANALYSIS_STATUSES.includes(analysis.analysisStatus) ? analysis.analysisStatus : "failed",
  });
}
