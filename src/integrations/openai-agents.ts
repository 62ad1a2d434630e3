// littleCanaryInputGuardrail: an input guardrail for the OpenAI Agents SDK for JavaScript
// (`@openai/agents`), in-process, no HTTP (docs/integrations.md). It is a plain object of the
// SDK's InputGuardrail shape, typed structurally so this package needs no dependency on the SDK.
// `runInParallel: false`: the SDK waits for the screen, so a tripped wire means the model never
// saw the text. Decisions come from classifyForHost like every other adapter; under `fail_closed`
// `warn` trips the wire too, since this host has no channel to show a warning. `outputInfo`
// never contains the input text, and a failing checker is named by its error's class only.
import { hasCheckMethod, isPlainObject } from "../core/guards.js";
import { UsageError } from "../core/errors.js";
import { codePointLength } from "../core/codepoints.js";
import type { DegradedPolicy } from "../canary/pipeline-options.js";
import { isGenuineVerdict } from "../pipeline/verdict.js";
import { classifyForHost, parseFailureMode, unscreenedForHost, FAILURE_MODE_ENV } from "./classify.js";

/** What the guardrail can screen with: a SecurityPipeline, anything with `check`, or a function. */
export type GuardrailChecker =
  | {
      /** Screens `text`; resolves to a serialized verdict. */
      check(text: string): unknown;
    }
  | ((text: string) => unknown);

/** How far one input was screened, as `outputInfo.coverage` reports it. */
export type GuardrailCoverage = "unsafe" | "degraded" | "flagged" | "unexercised" | "safe";

/** `outputInfo` of every result: exactly these keys, never the input text. */
export interface LittleCanaryGuardrailInfo {
  readonly coverage: GuardrailCoverage;
  readonly tripwire_triggered: boolean;
  readonly policy: DegradedPolicy;
  readonly safe: boolean | null;
  readonly degraded: boolean;
  readonly canary_status: string | null;
  readonly analysis_method: string | null;
  readonly analysis_status: string | null;
  readonly risk_score: number | null;
  readonly signals: readonly string[];
  readonly summary: string;
  readonly error: string | null;
  readonly screened_chars: number;
}

/** The SDK's GuardrailFunctionOutput, structurally. */
export interface LittleCanaryGuardrailOutput {
  readonly tripwireTriggered: boolean;
  readonly outputInfo: LittleCanaryGuardrailInfo;
}

/** The SDK's InputGuardrail, structurally (execute receives { agent, input, context }). */
export interface LittleCanaryInputGuardrail {
  readonly name: string;
  readonly runInParallel: false;
  /**
   * Screens the agent's input; trips the wire on a block, and under `fail_closed` on anything that
   * is not an exercised clean pass.
   */
  execute(args: { readonly input: string | readonly unknown[]; readonly agent?: unknown; readonly context?: unknown }): Promise<LittleCanaryGuardrailOutput>;
}

/** Options of littleCanaryInputGuardrail. */
export interface LittleCanaryGuardrailOptions {
  /** `fail_open` or `fail_closed`; when omitted, LITTLE_CANARY_FAILURE_MODE decides (deny → fail_closed). */
  readonly onDegraded?: DegradedPolicy;
  /** Default `little_canary`. */
  readonly name?: string;
  /** Receives one line whenever coverage is not `safe` (and a configuration notice); never input text. */
  readonly onInfo?: (message: string) => void;
  /** Environment for LITTLE_CANARY_FAILURE_MODE (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** `outputInfo.summary` when the checker threw or returned something that is not a verdict. */
export const CHECKER_FAILED_SUMMARY = "Checker raised; behavioral coverage unavailable.";
/** `outputInfo.summary` when the input held no user text. */
export const NOTHING_TO_SCREEN_SUMMARY = "No user text to screen; the checker was not called.";

function resolvePolicy(options: LittleCanaryGuardrailOptions): DegradedPolicy {
  if (options.onDegraded !== undefined) {
    if (options.onDegraded !== "fail_open" && options.onDegraded !== "fail_closed") throw new UsageError("onDegraded must be 'fail_open' or 'fail_closed'");
    return options.onDegraded;
  }
  const env = options.env ?? process.env;
  const parsed = parseFailureMode(env[FAILURE_MODE_ENV]);
  // Reported, never read as allow: a guardrail built under an unreadable policy refuses to exist.
  if (!parsed.ok) throw new UsageError(`${FAILURE_MODE_ENV}: ${parsed.error}`);
  return parsed.mode === "deny" ? "fail_closed" : "fail_open";
}

function checkFunction(checker: GuardrailChecker): (text: string) => unknown {
  if (typeof checker === "function") return checker;
  if (hasCheckMethod(checker)) return (text) => checker.check(text);
  throw new TypeError("littleCanaryInputGuardrail needs a checker with .check(text) or a function");
}

/** User text of an Agents SDK input: chunks joined with "\n", empty chunks dropped. */
export function extractUserText(input: unknown): string {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  const chunks = input.flatMap((item): unknown[] => {
    if (!isPlainObject(item) || item["role"] !== "user") return [];
    const content = item["content"];
    if (!Array.isArray(content)) return [content];
    return content.flatMap((part) => (isPlainObject(part) && part["type"] === "input_text" ? [part["text"]] : []));
  });
  return chunks.filter((chunk) => typeof chunk === "string" && chunk !== "").join("\n");
}

function errorName(error: unknown): string {
  const name = error instanceof Error ? error.name : "Error";
  return /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) ? name : "Error";
}

const COVERAGE = { deny: "unsafe", warn: "flagged", allow: "safe" } as const;

/**
 * Builds the input guardrail around `pipeline` (a SecurityPipeline, or any checker returning a
 * genuine PipelineVerdict). Throws UsageError for an invalid policy and TypeError for a checker
 * that cannot be called, before any check runs.
 */
export function littleCanaryInputGuardrail(pipeline: GuardrailChecker, options: LittleCanaryGuardrailOptions = {}): LittleCanaryInputGuardrail {
  const policy = resolvePolicy(options);
  const check = checkFunction(pipeline);
  const failureMode = policy === "fail_closed" ? "deny" : "allow";
  const info = options.onInfo ?? (() => {});
  const describe = (pipeline as { describe?: () => { mode?: string } }).describe;
  if (typeof describe === "function" && describe.call(pipeline).mode === "advisory") {
    info("little-canary guardrail: the pipeline runs in advisory mode, which never answers safe:false; the tripwire fires only under fail_closed.");
  }

  async function execute(args: { readonly input: string | readonly unknown[] }): Promise<LittleCanaryGuardrailOutput> {
    const result = await screen(extractUserText(args?.input));
    if (result.coverage !== "safe") {
      info(`little-canary guardrail: coverage=${result.coverage} tripwire=${String(result.tripwire_triggered)} policy=${policy}`);
    }
    return { tripwireTriggered: result.tripwire_triggered, outputInfo: result };
  }

  /**
   * The info of one input's user text: its verdict's, or why it has none (no user text, so the
   * checker was not called; or the checker failed, `error` its class name).
   */
  async function screen(text: string): Promise<LittleCanaryGuardrailInfo> {
    let verdict: unknown = null;
    let error: string | null = null;
    if (text !== "") {
      try {
        verdict = await check(text);
        if (!isGenuineVerdict(verdict)) error = "TypeError";
      } catch (caught) {
        error = errorName(caught);
      }
    }
    const wire = isGenuineVerdict(verdict) ? verdict.toDict() : null;
    const failed = error !== null;
    const outcome = wire ? classifyForHost(wire, { failureMode }) : unscreenedForHost(failed ? "checker failed" : "no user text", { failureMode });
    const degraded = wire ? wire.degraded : failed;
    const coverage: GuardrailCoverage = outcome.decision === "unscreened" ? (degraded ? "degraded" : "unexercised") : COVERAGE[outcome.decision];
    return Object.freeze({
      coverage,
      tripwire_triggered: outcome.decision === "deny" || (policy === "fail_closed" && coverage !== "safe"),
      policy,
      safe: wire ? wire.safe : null,
      degraded,
      canary_status: wire ? wire.canary_status : failed ? "failed" : null,
      analysis_method: wire ? wire.analysis_method : failed ? "none" : null,
      analysis_status: wire ? wire.analysis_status : failed ? "failed" : null,
      risk_score: wire ? wire.canary_risk_score : null,
      signals: Object.freeze(wire ? [...wire.advisory.signals] : []),
      summary: wire ? wire.summary : failed ? CHECKER_FAILED_SUMMARY : NOTHING_TO_SCREEN_SUMMARY,
      error,
      screened_chars: codePointLength(text),
    });
  }

  return Object.freeze({ name: options.name ?? "little_canary", runInParallel: false as const, execute });
}
