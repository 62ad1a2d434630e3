// runEval: the library entry of `little-canary eval` (docs/eval.md). Cases are checked one at a
// time (so contention does not skew latencies), each flushed as one JSONL line.
import { resolve } from "node:path";
import { LittleCanaryError } from "../core/errors.js";
import { asciiJson, escapeUnsafeChars } from "../core/display-text.js";
import { orAbort } from "../core/or-abort.js";
import { endpointOrigin } from "../canary/endpoint.js";
import { printableModelName, unreachableFix } from "../canary/served-models.js";
import type { OpenAIContextProof } from "../canary/openai-probe.js";
import { canaryOutageWarning, canaryTarget, confirmCanaryModel, modelCheckProblem } from "../pipeline/canary-warning.js";
import { observeCanary, type CanaryOutageReason } from "../pipeline/circuit-breaker.js";
import { reasonBreakdown, ReasonTally } from "../pipeline/reason-tally.js";
import { preflightCanary } from "../pipeline/canary-preflight.js";
import type { HealthReport } from "../pipeline/health.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";
import { roundHalfEven } from "../pipeline/round.js";
import { loadCorpora, loadIdsFile, selectCases, type EvalCase } from "./corpus.js";
import { buildHeader, resolveOptions, type EvalOptions, type ResolvedEval } from "./plan.js";
import { jsonlLine, resultLine } from "./records.js";
import { renderReport } from "./report.js";
import { scoreException, scoreVerdict, type CaseScore } from "./score.js";
import { checkOutputPath, nodeEvalFs, openFileSink, refuseToReplaceNonReport, removeEarlierOutput, writeFileAtomically } from "./sink.js";
import { summarize, type EvalSummary, type ScoredCase } from "./summary.js";

const WARMUP_TEXT = "Hello.";

/** A canary mode's backend (model or judge) is not ready; nothing was run. */
class BackendUnavailableError extends LittleCanaryError {
  override readonly name = "BackendUnavailableError";
  constructor(message: string) {
    super("backend", message);
  }
}

/** "3 cases". */
function caseCount(count: number): string {
  return `${count} case${count === 1 ? "" : "s"}`;
}

/**
 * The run was stopped (signal) after `written` cases, or before the first (null); the JSONL has no
 * completion line, and no report was written (`report`: one was asked for; an earlier one is gone).
 */
class EvalInterruptedError extends LittleCanaryError {
  override readonly name = "EvalInterruptedError";
  constructor(written: number | null, total: number, report: boolean) {
    super(
      "input_refused",
      written === null
        ? "interrupted before the first case; no output was written"
        : `interrupted after ${written} of ${caseCount(total)}; the output has no completion line${report ? " and no report was written" : ""}`,
    );
  }
}

function buildPipeline(r: ResolvedEval, options: EvalOptions, warn: (line: string) => void): SecurityPipeline {
  return new SecurityPipeline({
    mode: "block",
    // The pipeline's own outage warning advises on routing (fail-open, --fail-closed), which eval
    // never does: eval tells the outage itself after the cases (outageWarning), with a fix it accepts.
    onWarning: (message, code) => {
      if (code !== "canary_outage") warn(`warning: ${escapeUnsafeChars(message)}\n`);
    },
    enableCanary: r.mode !== "structural-only",
    enableStructuralFilter: r.mode !== "model-only",
    // Run the canary even on structurally blocked cases, so pipeline mode measures both layers.
    skipCanaryIfStructuralBlocks: false,
    blockThreshold: r.threshold,
    ...(r.pool !== null
      ? { canaryPool: { endpoints: r.pool, onWarning: options.onPoolWarning, onAttempt: options.onPoolAttempt } }
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

/**
 * One readable line naming what is missing and where, with why when the model list said (`why`:
 * unreachable and its cause, no answer in time, not a model list); never the raw health report.
 */
function unavailableMessage(r: ResolvedEval, health: HealthReport, why: string | null): string {
  const origin = r.pool !== null ? r.pool.map((endpoint) => endpointOrigin(endpoint.url)).join(", ") : endpointOrigin(r.backendUrl);
  const missing: string[] = [];
  if (health.canary_available !== true && r.model !== null) missing.push(`canary model ${asciiJson(r.model)}`);
  if (r.judge !== null && health.judge_available !== true) missing.push(`judge model ${asciiJson(r.judge)}`);
  const what = missing.length > 0 ? missing.join(" and ") : "the backend";
  if (why !== null) return `${what} not available: ${why}; nothing was run`;
  if (r.provider === "openai") return `${what} not available at ${origin}; nothing was run (is the server running, and does GET /v1/models answer?)`;
  const pulls = [r.model, r.judge].filter((tag): tag is string => tag !== null).map((tag) => `ollama pull ${asciiJson(tag)}`);
  return `${what} not available at ${origin}; nothing was run (is \`ollama serve\` running? ${pulls.join(", ")})`;
}

/**
 * The one warning line for the cases whose canary call found the backend unreachable, timing out or
 * without its model: the most common reason with its fix (a larger --timeout, the server started or
 * --ollama-url / --base-url, the model pulled), every reason counted when there were several. Those
 * cases are unscored, never routed, so nothing is said about fail-open or fail-closed routing.
 */
function outageWarning(pipeline: SecurityPipeline, pooled: boolean, outages: ReasonTally<CanaryOutageReason>, total: number): string | null {
  const counts = outages.counts();
  const first = counts[0];
  if (first === undefined) return null;
  const count = counts.reduce((sum, [, n]) => sum + n, 0);
  const words = `${caseCount(count)} of ${total}${reasonBreakdown(counts)}, left unscored`;
  const target = canaryTarget(pipeline);
  // A pool's endpoints are fixed in --canary-endpoint (eval refuses --ollama-url beside it).
  if (pooled && first[0] === "unavailable" && target.provider !== "embedded") {
    const fix = unreachableFix(target.provider, null, true);
    return `warning: canary pool at ${target.url} (model ${printableModelName(target.model)}) was not reachable for ${words}: unavailable; the canary did not screen them; ${fix}\n`;
  }
  return canaryOutageWarning(target, first[0], { count, words, mixed: counts.length > 1 });
}

/** The default warning sink: standard error (stdout may carry the caller's data). */
function warnOnStderr(line: string): void {
  process.stderr.write(`little-canary: ${line}`);
}

/** Runs an evaluation (refused before any case when a canary mode's backend is not ready) and returns its summary. */
export async function runEval(options: EvalOptions): Promise<EvalSummary> {
  const r = resolveOptions(options);
  const cwd = options.cwd ?? process.cwd();
  const now = options.now ?? (() => performance.now());
  const clock = options.clock ?? (() => new Date());
  const output = resolve(cwd, options.output);
  const report = options.report ? resolve(cwd, options.report) : null;
  await checkOutputPath("--output", output);
  if (report !== null) await checkOutputPath("--report", report);
  if (report !== null) await refuseToReplaceNonReport("--report", report);
  const loaded = await loadCorpora(options.corpus, { cwd });
  const ids = options.idsFile ? await loadIdsFile(options.idsFile, { cwd }) : null;
  const cases = selectCases(loaded, ids);
  const warn = options.onWarning ?? warnOnStderr;
  const fs = options.fs ?? nodeEvalFs;
  const pipeline = buildPipeline(r, options, warn);

  const signal = options.signal;
  const beforeStart = <T>(work: Promise<T>): Promise<T> => orAbort(work, signal, () => new EvalInterruptedError(null, cases.length, false));
  let served: OpenAIContextProof | null = null;
  if (r.mode !== "structural-only") {
    // A canary model the server does not serve is named as such (pipeline/canary-warning.ts), not as an unready backend.
    await beforeStart(confirmCanaryModel(pipeline.probe));
    const health = await beforeStart(pipeline.healthCheck());
    if (!health.ready) throw new BackendUnavailableError(unavailableMessage(r, health, modelCheckProblem(pipeline.probe)));
    // A canary pool is pinned to one identity, and an OpenAI-compatible server must show it holds
    // a whole window, before the first case.
    served = await beforeStart(preflightCanary(pipeline));
  }
  // The plan's flag, which the header records too: resolveOptions refuses a warm-up without a canary.
  if (r.warmup) await beforeStart(pipeline.check(WARMUP_TEXT));
  const header = await beforeStart(buildHeader(r, pipeline, cases, loaded, ids ? { path: ids.path, sha256: ids.sha256 } : null, options, clock(), served));

  // Once the record is open (truncated), an earlier run's report goes, so that no report is ever
  // left beside a record of another run, whether this run completes, is interrupted, fails on a
  // full disk or is killed. A record that cannot be opened leaves both as they were; the report
  // path was checked above to hold nothing but an earlier eval report (refuseToReplaceNonReport).
  const sink = await openFileSink("--output", output, fs);
  if (report !== null) {
    try {
      await removeEarlierOutput("--report", report, fs);
    } catch (error) {
      await sink.close();
      throw error;
    }
  }
  const finished: (EvalCase & ScoredCase)[] = [];
  const outages = new ReasonTally<CanaryOutageReason>();
  try {
    await sink.write(jsonlLine(header));
    options.onHeader?.(header);
    for (const [index, c] of cases.entries()) {
      const interrupted = (): Error => new EvalInterruptedError(index, cases.length, report !== null);
      if (signal?.aborted) throw interrupted();
      const started = now();
      let score: CaseScore;
      try {
        const verdict = await orAbort(pipeline.check(c.prompt), signal, interrupted);
        const canary = observeCanary(verdict.toRecord());
        if (canary.kind === "outage") outages.add(canary.reason);
        score = scoreVerdict(verdict, r.mode, c.kind);
      } catch (error) {
        if (error instanceof EvalInterruptedError) throw error;
        score = scoreException(error);
      }
      const elapsed = now() - started;
      const latencyMs = Number.isFinite(elapsed) && elapsed > 0 ? roundHalfEven(elapsed, 1) : 0;
      await sink.write(jsonlLine(resultLine(c, index, cases.length, score, latencyMs)));
      finished.push({ ...c, score, latencyMs });
      options.onProgress?.(index + 1, cases.length);
    }
    const summary = summarize(finished);
    await sink.write(jsonlLine({ type: "complete", finished_at: clock().toISOString(), summary }));
    await sink.close();
    if (report !== null) await writeFileAtomically("--report", report, renderReport(header, summary, finished));
    return summary;
  } finally {
    await sink.close();
    // Told once, whether the run completed or stopped: the cases it cost are in the record.
    const warning = outageWarning(pipeline, r.pool !== null, outages, cases.length);
    try {
      if (warning !== null) warn(warning);
    } catch {
      // A caller's sink that throws must not replace the run's own outcome; nowhere left to tell it.
    }
  }
}
