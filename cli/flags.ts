// The flags every command defines, and their argument parsers: what commander needs to build
// the program and its --help. The program defines every command before it knows which one runs,
// so this module stays cheap to import (no pipeline, no zod); turning the flags into options
// happens in options.ts, which a command imports only when it runs.
import { InvalidArgumentError, Option, type Command } from "commander";
import { UsageError } from "../src/core/errors.js";
import type { CanarySettings } from "../src/verbs/canary-settings.js";
import { DEFAULT_CANARY_MODEL, DEFAULT_OPENAI_MODEL, MODEL_DIR_ENV, parseShardSpec, parseTimeoutFlag, type ShardSpec } from "../src/verbs/defaults.js";

export function timeoutArg(raw: string): number {
  try {
    return parseTimeoutFlag(raw);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : "invalid timeout");
  }
}

/** An integer of `least` or more, in decimal digits; a refusal names the smallest value allowed. */
function intArg(raw: string, least: 0 | 1): number {
  const words = least === 0 ? "must be a non-negative integer" : "must be an integer of 1 or more";
  if (!/^\d+$/.test(raw.trim())) throw new InvalidArgumentError(words);
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value)) throw new InvalidArgumentError("must not exceed 9007199254740991");
  if (value < least) throw new InvalidArgumentError(words);
  return value;
}

/** An integer of 0 or more. */
export function nonNegativeIntArg(raw: string): number {
  return intArg(raw, 0);
}

/** An integer of 1 or more. */
export function positiveIntArg(raw: string): number {
  return intArg(raw, 1);
}

/** `--shard K/N` (0-based K): the messages of parseShardSpec, as commander's argument error. */
export function shardArg(raw: string): ShardSpec {
  try {
    return parseShardSpec(raw);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : "invalid shard");
  }
}

/** `--threshold`: a number from 0 to 1. */
export function thresholdArg(raw: string): number {
  const text = raw.trim();
  const value = /^[+]?(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value > 1) throw new InvalidArgumentError("must be a number from 0 to 1");
  return value;
}

/**
 * The canary flags, as the verbs take them (src/verbs/canary-settings.ts). addCanaryFlags' hook
 * sets `canaryModelGiven` (--canary-model given, not defaulted) and keeps `--canary BACKEND` in
 * `canaryBackend`, leaving `canary` a plain boolean (false with --no-canary).
 */
export type CanaryFlags = CanarySettings;

/**
 * One setting that has two flag names (`name`, and `alias`, the name another command uses or an
 * older one): either may be given, or both with one value; two different values, or an empty
 * alias, are refused rather than one silently winning.
 */
export function oneSetting(
  value: string | undefined,
  alias: string | undefined,
  name: string,
  aliasName: string,
  relation: "another name" | "the older name" = "another name",
): string | undefined {
  if (alias === "") throw new UsageError(`${aliasName} must not be empty`);
  if (value !== undefined && alias !== undefined && value !== alias) {
    throw new UsageError(`${aliasName} is ${relation} of ${name}: give one of them, not two different values`);
  }
  return value ?? alias;
}

/**
 * The parser of an option that names one thing (a file, a pin): given twice with different values
 * it is refused, not settled by the last one, so a wrapper's pin or output path cannot be
 * overridden by arguments appended after it. The same value twice is one value. Each option gets
 * its own parser, which remembers the first value itself: a negating flag between two values
 * (`--cache a --no-cache --cache b`) leaves commander's previous value `false`, not `a`.
 */
export function singleValue(): (value: string) => string {
  let first: string | undefined;
  return (value) => {
    if (first !== undefined && first !== value) throw new InvalidArgumentError("given twice with different values: give it once");
    first = value;
    return value;
  };
}

/** A repeatable option's values, in the order given. */
export function collectValue(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
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
    "never refuses, so adding it cannot break a flow. Use --mode block with",
    "--fail-closed where its answer routes text.",
  ],
};

/** The --mode paragraph of a command's --help: what each mode does and why this default. */
function modeHelpText(command: string, defaultMode: CanaryFlags["mode"]): string {
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

/** Adds --provider, --base-url and --api-key-env (every command that checks has them). */
export function addProviderFlags(command: Command): Command {
  return command
    .addOption(
      new Option("--provider <name>", "canary backend: ollama, or openai for vLLM and other OpenAI-compatible servers")
        .choices(["ollama", "openai"])
        .default("ollama"),
    )
    .option("--base-url <url>", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (with --provider openai)")
    .option("--api-key-env <name>", "environment variable holding the API key (with --provider openai; never logged)");
}

/**
 * Adds --mode, --canary-model, --ollama-url, --provider, --base-url, --api-key-env, --timeout,
 * --no-canary, --canary-endpoint and --endpoint-log.
 */
export function addCanaryFlags(command: Command, defaultMode: CanaryFlags["mode"]): Command {
  addProviderFlags(command)
    .addOption(
      new Option("--mode <mode>", "what a finding does: block, full or advisory (see Modes below)").choices(["block", "advisory", "full"]).default(defaultMode),
    )
    .addHelpText("after", modeHelpText(command.name(), defaultMode))
    // The default shown says both: under --provider openai the model a run uses is another (docs/vllm.md).
    .addOption(
      new Option("--canary-model <tag>", "canary model tag").default(
        DEFAULT_CANARY_MODEL,
        `"${DEFAULT_CANARY_MODEL}"; with --provider openai "${DEFAULT_OPENAI_MODEL}"`,
      ),
    )
    .option("--ollama-url <url>", "Ollama endpoint (http or https origin)", "http://127.0.0.1:11434")
    .option("--timeout <seconds>", "per-call canary timeout (default: $LITTLE_CANARY_TIMEOUT, else 600)", timeoutArg)
    .option("--canary <backend>", "embedded or embedded:PATH.gguf: run the canary in this process with node-llama-cpp (docs/embedded.md)")
    .option("--canary-sha256 <hex>", "SHA-256 of the --canary embedded:PATH model file (required with a path: it is the model's identity)")
    .option("--model-dir <dir>", `where \`model pull\` keeps models, for --canary embedded without a path (default: $${MODEL_DIR_ENV}, else the user cache)`)
    .option("--no-canary", "structural layer only: the canary is not run and results say so")
    // --canary BACKEND and --no-canary share one option value, where the last given wins: each
    // is noted as it is parsed, so that both given are refused (src/verbs/canary-settings.ts)
    // instead of one silently overriding the other.
    .on("option:canary", (value: string) => command.setOptionValue("canaryBackend", value))
    .on("option:no-canary", () => command.setOptionValue("noCanaryGiven", true))
    .hook("preAction", (self) => {
      // `canary` a plain boolean (absent means on), as every command reads it.
      const modelSource = self.getOptionValueSource("canaryModel");
      self.setOptionValue("canaryModelGiven", modelSource !== undefined && modelSource !== "default");
      self.setOptionValue("canary", self.getOptionValue("noCanaryGiven") !== true);
    });
  return addPoolFlags(command);
}

/**
 * Adds --canary-endpoint (repeatable) and --endpoint-log, and records whether --ollama-url was
 * given explicitly (`ollamaUrlGiven`): it has a default, and only an explicit one conflicts.
 */
export function addPoolFlags(command: Command): Command {
  return command
    .option(
      "--canary-endpoint <url[#n]>",
      "a canary endpoint of a pool, at most N checks in flight after #; repeatable, replaces --ollama-url (docs/scale.md)",
      collectValue,
    )
    .option("--endpoint-log <file>", "append which pool endpoint answered each check, and its latency, to FILE (JSONL; - for stderr)", singleValue())
    .hook("preAction", (self) => {
      const source = self.getOptionValueSource("ollamaUrl");
      self.setOptionValue("ollamaUrlGiven", source !== undefined && source !== "default");
    });
}
