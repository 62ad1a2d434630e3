// The flags of `little-canary eval`: their parsers and the `runEval` options they ask for.
import { resolveCanaryTimeout, TIMEOUT_ENV } from "../src/canary/timeout.js";
import type { EvalOptions } from "../src/eval/run.js";
import { DEFAULT_EVAL_TIMEOUT_SECONDS } from "../src/eval/timeout-default.js";
import type { EvalMode } from "../src/eval/score.js";
import type { CliIo } from "./io.js";
import type { PoolFlags, ProviderFlags } from "./flags.js";
import { canaryPoolFromFlags, providerOptionsFromFlags } from "./options.js";
import type { RunFile } from "../src/core/file-identity.js";
import { refuseSharedPaths } from "./shared-files.js";

export interface EvalFlags extends ProviderFlags, PoolFlags {
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

/** --timeout, else LITTLE_CANARY_TIMEOUT (validated like every command), else the harness's 10 s. */
function evalTimeout(flag: number | undefined, env: CliIo["env"]): number {
  if (flag !== undefined) return flag;
  const raw = env[TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_EVAL_TIMEOUT_SECONDS;
  return resolveCanaryTimeout(undefined, env);
}

/** --ollama-url, or the pool of --canary-endpoint with its warnings on stderr and its --endpoint-log. */
function poolOrUrl(flags: EvalFlags, io: CliIo): Pick<EvalOptions, "ollamaUrl" | "canaryEndpoints" | "onPoolWarning" | "onPoolAttempt"> {
  // A canary mode is required of a pool by runEval itself, with eval's own message.
  const pool = canaryPoolFromFlags(flags, io, true);
  if (pool === null) return { ollamaUrl: flags.ollamaUrl };
  return {
    canaryEndpoints: pool.endpoints,
    ...(pool.onWarning ? { onPoolWarning: pool.onWarning } : {}),
    ...(pool.onAttempt ? { onPoolAttempt: pool.onAttempt } : {}),
  };
}

/**
 * The run record, the report and the endpoint log are written: one that is a corpus, the ids file
 * or another of them (by identity, symlinks and hard links seen through) would destroy it.
 */
function refuseSharedEvalFiles(flags: EvalFlags, io: CliIo): Promise<void> {
  const pool = (flags.canaryEndpoint ?? []).length > 0;
  return refuseSharedPaths(
    io,
    [...flags.corpus.map((path): RunFile => ["--corpus", path]), ["--ids-file", flags.idsFile]],
    [
      ["--output", flags.output],
      ["--report", flags.report],
      ["--endpoint-log", pool ? flags.endpointLog : null],
    ],
  );
}

/** The `runEval` options the flags ask for, apart from the signal and the callbacks. */
export async function evalOptionsFromFlags(flags: EvalFlags, io: CliIo): Promise<EvalOptions> {
  await refuseSharedEvalFiles(flags, io);
  const canaryMode = (flags.mode ?? (flags.model !== undefined ? "pipeline" : "structural-only")) !== "structural-only";
  // --model stays required in canary modes (runEval says so); the provider flags only choose the server.
  const backend = providerOptionsFromFlags(flags, io, flags.model ?? "");
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
    ...poolOrUrl(flags, io),
    ...(backend.provider === "openai" ? { provider: "openai" as const, baseUrl: backend.baseUrl as string, apiKey: backend.apiKey ?? "" } : {}),
    output: flags.output,
    report: flags.report ?? null,
    cwd: io.cwd,
  };
}
