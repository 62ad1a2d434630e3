// The flags of `little-canary eval`: their parsers and the `runEval` options they ask for.
import { InvalidArgumentError } from "commander";
import { resolveCanaryTimeout, TIMEOUT_ENV } from "../src/config/timeout.js";
import { DEFAULT_EVAL_TIMEOUT_SECONDS, type EvalOptions } from "../src/eval/run.js";
import type { EvalMode } from "../src/eval/score.js";
import type { CliIo } from "./io.js";
import { providerOptionsFromFlags, type ProviderFlags } from "./options.js";

export interface EvalFlags extends ProviderFlags {
  corpus: string[];
  idsFile?: string;
  mode?: EvalMode;
  model?: string;
  judge?: string;
  threshold: number;
  timeout?: number;
  warmup?: boolean;
  ollamaUrl: string;
  output: string;
  report?: string;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function thresholdArg(raw: string): number {
  const text = raw.trim();
  const value = /^[+]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value > 1) throw new InvalidArgumentError("must be a number from 0 to 1");
  return value;
}

/** --timeout, else LITTLE_CANARY_TIMEOUT (validated like every command), else the harness's 10 s. */
function evalTimeout(flag: number | undefined, env: CliIo["env"]): number {
  if (flag !== undefined) return flag;
  const raw = env[TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_EVAL_TIMEOUT_SECONDS;
  return resolveCanaryTimeout(undefined, env);
}

/** The `runEval` options the flags ask for, apart from the signal and the callbacks. */
export function evalOptionsFromFlags(flags: EvalFlags, io: CliIo): EvalOptions {
  const canaryMode = (flags.mode ?? (flags.model !== undefined ? "pipeline" : "structural-only")) !== "structural-only";
  // --model stays required in canary modes (runEval says so); the provider flags only choose the server.
  const backend = providerOptionsFromFlags(flags, io, flags.model ?? "", null);
  return {
    corpus: flags.corpus,
    idsFile: flags.idsFile ?? null,
    ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
    model: flags.model ?? null,
    judge: flags.judge ?? null,
    threshold: flags.threshold,
    // The environment is read only when a canary will be called (as `demo` does).
    ...(canaryMode ? { timeoutSeconds: evalTimeout(flags.timeout, io.env) } : {}),
    warmup: flags.warmup === true,
    ollamaUrl: flags.ollamaUrl,
    ...(backend.provider === "openai" ? { provider: "openai" as const, baseUrl: backend.baseUrl as string, apiKey: backend.apiKey ?? "" } : {}),
    output: flags.output,
    report: flags.report ?? null,
    cwd: io.cwd,
  };
}
