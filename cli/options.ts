// Option parsers and the flags shared by commands that build a SecurityPipeline.
import { InvalidArgumentError, Option, type Command } from "commander";
import { parseTimeoutFlag, resolveCanaryTimeout } from "../src/config/timeout.js";
import { UsageError } from "../src/errors.js";
import { validateServiceUrl } from "../src/canary/endpoint.js";
import type { SecurityPipelineOptions } from "../src/pipeline/options.js";
import type { CliIo } from "./io.js";

export function timeoutArg(raw: string): number {
  try {
    return parseTimeoutFlag(raw);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : "invalid timeout");
  }
}

export function nonNegativeIntArg(raw: string): number {
  if (!/^\d+$/.test(raw.trim())) throw new InvalidArgumentError("must be a non-negative integer");
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value)) throw new InvalidArgumentError("must not exceed 9007199254740991");
  return value;
}

export function positiveIntArg(raw: string): number {
  const value = nonNegativeIntArg(raw);
  if (value < 1) throw new InvalidArgumentError("must be at least 1");
  return value;
}

export interface CanaryFlags {
  mode: "block" | "advisory" | "full";
  canaryModel: string;
  ollamaUrl: string;
  timeout?: number;
  canary: boolean;
  failClosed?: boolean;
}

/** Adds --mode, --canary-model, --ollama-url, --timeout and --no-canary. */
export function addCanaryFlags(command: Command, defaultMode: CanaryFlags["mode"]): Command {
  return command
    .addOption(new Option("--mode <mode>", "routing mode").choices(["block", "advisory", "full"]).default(defaultMode))
    .option("--canary-model <tag>", "canary model tag", "qwen2.5:1.5b")
    .option("--ollama-url <url>", "Ollama endpoint (http or https origin)", "http://127.0.0.1:11434")
    .option("--timeout <seconds>", "per-call canary timeout (default: $LITTLE_CANARY_TIMEOUT, else 600)", timeoutArg)
    .option("--no-canary", "structural layer only: the canary is not run and results say so");
}

/** Pipeline options from the shared flags; validates the endpoint and the timeout. */
export function pipelineOptionsFromFlags(flags: CanaryFlags, io: CliIo): SecurityPipelineOptions {
  if (!flags.canaryModel || flags.canaryModel.trim() === "") throw new UsageError("--canary-model must not be empty");
  if (flags.canary) validateServiceUrl(flags.ollamaUrl, "--ollama-url");
  return {
    mode: flags.mode,
    canaryModel: flags.canaryModel,
    ollamaUrl: flags.ollamaUrl,
    canaryTimeout: resolveCanaryTimeout(flags.timeout, io.env),
    enableCanary: flags.canary,
    onDegraded: flags.failClosed ? "fail_closed" : "fail_open",
  };
}
