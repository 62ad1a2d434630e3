// Option parsers and the flags shared by commands that build a SecurityPipeline.
import { InvalidArgumentError, Option, type Command } from "commander";
import { parseTimeoutFlag, resolveCanaryTimeout } from "../src/config/timeout.js";
import { UsageError } from "../src/core/errors.js";
import { parseShardSpec, type ShardSpec } from "../src/documents/shard.js";
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

/** `--shard K/N` (0-based K): the messages of parseShardSpec, as commander's argument error. */
export function shardArg(raw: string): ShardSpec {
  try {
    return parseShardSpec(raw);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : "invalid shard");
  }
}

export interface CanaryFlags {
  mode: "block" | "advisory" | "full";
  canaryModel: string;
  ollamaUrl: string;
  timeout?: number;
  canary: boolean;
  failClosed?: boolean;
}

/** Why each command defaults to its mode (printed in its --help). */
const MODE_DEFAULT_REASONS: Readonly<Record<string, readonly string[]>> = {
  check: ['it answers one question for a script, "may this text go on?", so every', "finding, strong or weak, blocks (safe:false, empty safe_input)."],
  screen: [
    "it reports each item for a CI gate: strong evidence is a block, weaker",
    "canary evidence a flag, and both fail the gate (exit 1), so the batch keeps",
    "the two apart without letting either pass.",
  ],
  ingest: [
    "the manifest keeps strong evidence (block) and weaker canary evidence (flag)",
    "apart; a flagged record is held just like a blocked one, so no mode admits",
    "more records.",
  ],
  serve: [
    "the service is often put in front of a working agent to observe first: it",
    "never refuses, so adding it cannot break a flow. Use --mode block (and",
    "--fail-closed) where its answer routes text.",
  ],
};

/** The --mode paragraph of a command's --help: what each mode does and why this default. */
export function modeHelpText(command: string, defaultMode: CanaryFlags["mode"]): string {
  const reason = MODE_DEFAULT_REASONS[command] ?? [];
  return `
Modes (--mode: what a finding does to the verdict):
  block     every finding blocks: structural, and canary findings strong or weak
  full      structural and strong (hard) canary findings block; weaker canary findings
            pass with an advisory (flagged, severity medium)
  advisory  nothing blocks: every finding is an advisory (structural and strong canary
            findings high, weaker ones medium), and safe stays true
  In every mode, low-confidence canary signals are a low advisory, and a check whose
  canary did not run is degraded or unexercised, never clean.
  ${command} defaults to ${defaultMode}${reason.length > 0 ? `:\n${reason.map((line) => `    ${line}`).join("\n")}` : "."}`;
}

/** Adds --mode, --canary-model, --ollama-url, --timeout and --no-canary. */
export function addCanaryFlags(command: Command, defaultMode: CanaryFlags["mode"]): Command {
  return command
    .addOption(
      new Option("--mode <mode>", "what a finding does: block, full or advisory (see Modes below)").choices(["block", "advisory", "full"]).default(defaultMode),
    )
    .addHelpText("after", modeHelpText(command.name(), defaultMode))
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
