// The flags of `little-canary demo` and the `runDemoCommand` options they ask for, after the
// combinations that make no sense are refused.
import { UsageError } from "../src/core/errors.js";
import type { DemoCommandOptions } from "../src/demo/command.js";
import { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL } from "../src/canary/defaults.js";
import type { CliIo } from "./io.js";

export interface DemoFlags {
  replay?: boolean;
  live?: boolean;
  capture?: string;
  record?: string;
  backend: string;
  /** `--canary-model`, the name every command uses. */
  canaryModel?: string;
  /** `--ollama-url`, the name every command uses. */
  ollamaUrl?: string;
  /** `--model`: the older name of --canary-model, kept as an alias. */
  model?: string;
  /** `--endpoint`: the older name of --ollama-url, kept as an alias. */
  endpoint?: string;
  timeout?: number;
  json?: boolean;
}

type FlagOptions = Pick<DemoCommandOptions, "live" | "capturePath" | "recordPath" | "backend" | "model" | "endpoint" | "timeoutSeconds" | "env">;

/**
 * The value of a flag that has an older alias: either name may be given, or both with one value;
 * two different values are refused rather than one silently winning.
 */
function aliased(value: string | undefined, alias: string | undefined, name: string, aliasName: string): string | undefined {
  if (value !== undefined && alias !== undefined && value !== alias) {
    throw new UsageError(`${aliasName} is the older name of ${name}: give one of them, not two different values`);
  }
  return value ?? alias;
}

/** The demo options the flags ask for; throws UsageError for a combination that makes no sense. */
export function demoOptionsFromFlags(flags: DemoFlags, io: CliIo): FlagOptions {
  if (flags.replay && flags.live) throw new UsageError("--replay and --live cannot be combined");
  if (flags.live && flags.capture !== undefined) throw new UsageError("--capture belongs to replay, not --live");
  if (!flags.live && flags.record !== undefined) throw new UsageError("--record needs --live");
  return {
    live: flags.live === true,
    ...(flags.capture !== undefined ? { capturePath: flags.capture } : {}),
    ...(flags.record !== undefined ? { recordPath: flags.record } : {}),
    backend: flags.backend,
    model: aliased(flags.canaryModel, flags.model, "--canary-model", "--model") ?? DEFAULT_CANARY_MODEL,
    endpoint: aliased(flags.ollamaUrl, flags.endpoint, "--ollama-url", "--endpoint") ?? DEFAULT_OLLAMA_URL,
    ...(flags.timeout !== undefined ? { timeoutSeconds: flags.timeout } : {}),
    env: io.env,
  };
}
