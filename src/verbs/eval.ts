// `evaluate`, the verb behind `little-canary eval`: its settings resolved once (the backend and pool
// by the rules every checking verb shares), then `runEval`; the summary is returned, never printed.
import { resolveCanaryTimeout, TIMEOUT_ENV } from "../canary/timeout.js";
import { runEval } from "../eval/run.js";
import type { EvalOptions, RunHeader } from "../eval/plan.js";
import { DEFAULT_EVAL_TIMEOUT_SECONDS } from "../eval/timeout-default.js";
import { canaryPoolFromSettings, providerOptionsFromSettings, type PoolSettings, type ProviderSettings } from "./canary-settings.js";
import type { VerbIo } from "./reporter.js";

export type { Rate } from "../eval/rates.js";
export type { RunHeader } from "../eval/plan.js";
export type { EvalSummary, KindCounts } from "../eval/summary.js";

/** The settings of one evaluation run, as plain values. */
export interface EvaluateOptions extends ProviderSettings, PoolSettings, Pick<EvalOptions, "corpus" | "mode" | "warmup" | "output" | "signal" | "judgeFlag"> {
  readonly idsFile?: string;
  readonly model?: string;
  readonly judge?: string;
  readonly threshold: number;
  /** Seconds per call; absent: LITTLE_CANARY_TIMEOUT, else 10. */
  readonly timeout?: number;
  readonly ollamaUrl: string;
  readonly report?: string;
  readonly io: VerbIo;
}

/** The setting, else LITTLE_CANARY_TIMEOUT (validated like every verb's), else the harness's 10 s. */
function evalTimeout(setting: number | undefined, env: VerbIo["env"]): number {
  if (setting !== undefined) return setting;
  return env[TIMEOUT_ENV]?.trim() ? resolveCanaryTimeout(undefined, env) : DEFAULT_EVAL_TIMEOUT_SECONDS;
}

/** The `runEval` options the settings ask for, resolved once, apart from the signal and the callbacks. */
function evalPlan(options: EvaluateOptions): EvalOptions {
  const { io } = options;
  const canaryMode = (options.mode ?? (options.model !== undefined ? "pipeline" : "structural-only")) !== "structural-only";
  // model stays required in canary modes (runEval says so); the provider settings only choose the server.
  const backend = providerOptionsFromSettings(options, io, options.model ?? "");
  // Resolved in every mode, so an invalid LITTLE_CANARY_TIMEOUT is refused as check, screen and
  // ingest refuse it even without a canary (a typo is caught before a run that would use it);
  // passed on only when a canary will be called.
  const timeoutSeconds = evalTimeout(options.timeout, io.env);
  const timeout = canaryMode ? { timeoutSeconds } : {};
  // The ollamaUrl, or the pool of canaryEndpoint with its warnings and endpoint log. A canary mode
  // is required of a pool by runEval itself, with eval's own message.
  const pool = canaryPoolFromSettings(options, { ...io, warn: (message) => io.reporter.warn(message) }, true);
  return Object.freeze({
    corpus: options.corpus,
    idsFile: options.idsFile ?? null,
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    model: options.model ?? null,
    judge: options.judge ?? null,
    ...(options.judgeFlag === undefined ? {} : { judgeFlag: options.judgeFlag }),
    threshold: options.threshold,
    ...timeout,
    warmup: options.warmup === true,
    ...(pool === null ? { ollamaUrl: options.ollamaUrl } : { canaryEndpoints: pool.endpoints, onPoolWarning: pool.onWarning, onPoolAttempt: pool.onAttempt }),
    ...(backend.provider === "openai" ? { provider: "openai" as const, baseUrl: backend.baseUrl as string, apiKey: backend.apiKey ?? "" } : {}),
    output: options.output,
    report: options.report ?? null,
    cwd: io.cwd,
  });
}

/** Runs one evaluation: the run record (and report) written; returns the summary and the header it wrote (null if it stopped before one). */
export async function evaluate(options: EvaluateOptions) {
  const plan = evalPlan(options);
  const { reporter } = options.io;
  let header = null as RunHeader | null;
  try {
    const summary = await runEval({
      ...plan,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onHeader: (written) => {
        header = written;
      },
      onProgress: (done, total) => reporter.progress(done, total),
      // runEval hands whole `warning: …` lines; the reporter's warn adds that prefix itself and
      // clears a progress line drawn on a terminal first, so it takes the message alone.
      onWarning: (line) => reporter.warn(line.replace(/^warning: /, "").replace(/\n$/, "")),
    });
    return { summary, header };
  } finally {
    reporter.finishProgress();
  }
}
