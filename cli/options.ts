// Option parsers and the flags shared by commands that build a SecurityPipeline.
import { InvalidArgumentError, Option, type Command } from "commander";
import { parseTimeoutFlag, resolveCanaryTimeout } from "../src/config/timeout.js";
import { UsageError } from "../src/core/errors.js";
import { resolve } from "node:path";
import { parseShardSpec, type ShardSpec } from "../src/documents/shard.js";
import { validateBaseUrl, validateServiceUrl } from "../src/canary/endpoint.js";
import { apiKeyFromEnv } from "../src/canary/openai-probe.js";
import { parsePoolEndpoints } from "../src/canary/pool-endpoints.js";
import { endpointLogWriter } from "../src/canary/pool-log.js";
import type { CanaryPoolConfig, SecurityPipelineOptions } from "../src/pipeline/options.js";
import type { CliIo } from "./io.js";
import { MODEL_DIR_ENV } from "../src/canary/embedded-models.js";
import { checkModelSha256 } from "../src/canary/embedded-model-file.js";

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

/** --provider, --base-url and --api-key-env: which kind of server the canary runs on. */
export interface ProviderFlags {
  /** Absent means ollama (the default). */
  provider?: "ollama" | "openai";
  baseUrl?: string;
  apiKeyEnv?: string;
}

/** The --canary-model default (an Ollama tag). */
const DEFAULT_CANARY_MODEL_FLAG = "qwen2.5:1.5b";

export interface CanaryFlags extends ProviderFlags, PoolFlags {
  mode: "block" | "advisory" | "full";
  canaryModel: string;
  /**
   * Set by addCanaryFlags' hook: --canary-model was given, not defaulted (commander's option
   * value source). Absent (flags built by a caller): a model equal to the default counts as the default.
   */
  canaryModelGiven?: boolean;
  ollamaUrl: string;
  timeout?: number;
  /** False with --no-canary; `--canary BACKEND` is kept in `canaryBackend` by addCanaryFlags' hook. */
  canary: boolean;
  /** `--canary embedded[:PATH]`: run the canary in this process (docs/embedded.md). */
  canaryBackend?: string;
  /** `--canary-sha256 HEX`: the SHA-256 of the --canary embedded:PATH file. */
  canarySha256?: string;
  /** `--model-dir DIR`: where `model pull` keeps models (for --canary embedded without a path). */
  modelDir?: string;
  /** Checks in flight (screen, ingest): the embedded canary gets one context sequence per slot. */
  concurrency?: number;
  failClosed?: boolean;
}

function collectValue(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The flags that describe a pool of canary endpoints, shared by every command that checks. */
export interface PoolFlags {
  /** `--canary-endpoint URL[#N]`, repeatable: a pool in place of --ollama-url or --base-url. */
  canaryEndpoint?: string[];
  /** `--endpoint-log FILE`: which pool endpoint answered each check (JSONL). */
  endpointLog?: string;
  /** Set by addPoolFlags' pre-action hook: --ollama-url was given, not defaulted. */
  ollamaUrlGiven?: boolean;
  provider?: "ollama" | "openai";
}

/**
 * The canary pool --canary-endpoint asks for, or null without it. The pool's endpoints replace
 * --ollama-url, so giving both is refused (and so is a pool when `canary` is false, --no-canary);
 * take-out warnings go to stderr and every attempt to the --endpoint-log file.
 */
export function canaryPoolFromFlags(flags: PoolFlags, io: CliIo, canary: boolean): CanaryPoolConfig | null {
  const raws = flags.canaryEndpoint ?? [];
  if (raws.length === 0) {
    if (flags.endpointLog !== undefined) throw new UsageError("--endpoint-log needs --canary-endpoint: it logs the endpoints of a pool");
    return null;
  }
  if (flags.ollamaUrlGiven === true) throw new UsageError("give --ollama-url or --canary-endpoint, not both: the pool's endpoints replace --ollama-url");
  if (!canary) throw new UsageError("--canary-endpoint cannot be used with --no-canary");
  // OpenAI-compatible replicas are named by their base URLs (…/v1), Ollama ones by their origins.
  const endpoints = parsePoolEndpoints(raws, "--canary-endpoint", flags.provider === "openai" ? "base_url" : "origin");
  if (flags.endpointLog !== undefined && flags.endpointLog.trim() === "") throw new UsageError("--endpoint-log must not be empty");
  const logPath = flags.endpointLog === undefined ? null : resolve(io.cwd, flags.endpointLog);
  return {
    endpoints,
    onWarning: (message) => void io.stderr.write(`warning: ${message}\n`),
    ...(logPath !== null ? { onAttempt: endpointLogWriter(logPath) } : {}),
  };
}

/** `canaryPoolFromFlags` as SecurityPipeline options: `{ canaryPool }`, or nothing without a pool. */
export function poolOptionsFromFlags(flags: CanaryFlags, io: CliIo): Pick<SecurityPipelineOptions, "canaryPool"> {
  const canaryPool = canaryPoolFromFlags(flags, io, flags.canary);
  return canaryPool === null ? {} : { canaryPool };
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

/** The model an OpenAI-compatible provider uses when --canary-model was left at its Ollama default. */
export const DEFAULT_OPENAI_CANARY_MODEL = "gpt-4o-mini";

/**
 * The backend part of the pipeline options from --provider, --base-url and --api-key-env, every
 * refusal naming its flag: the URL is checked (a path such as /v1 is allowed, credentials, a
 * query or a fragment are not) and the key is read from the named variable. Only a model left
 * at the Ollama default (`modelLeftAtDefault`) becomes the OpenAI default; a model the user
 * typed is kept, even when it is the Ollama default's name.
 */
export function providerOptionsFromFlags(
  flags: ProviderFlags & Pick<PoolFlags, "canaryEndpoint">,
  io: Pick<CliIo, "env">,
  canaryModel: string,
  modelLeftAtDefault = false,
): Pick<SecurityPipelineOptions, "provider" | "baseUrl" | "apiKey" | "canaryModel"> {
  if (flags.provider !== "openai") {
    if (flags.baseUrl !== undefined) throw new UsageError("--base-url needs --provider openai (the Ollama endpoint is --ollama-url)");
    if (flags.apiKeyEnv !== undefined) throw new UsageError("--api-key-env needs --provider openai");
    return {};
  }
  const pooled = (flags.canaryEndpoint ?? []).length > 0;
  if (pooled && flags.baseUrl !== undefined) throw new UsageError("give --base-url or --canary-endpoint, not both: the pool's endpoints replace --base-url");
  if (!pooled && (flags.baseUrl === undefined || flags.baseUrl.trim() === ""))
    throw new UsageError("--provider openai needs --base-url (or --canary-endpoint)");
  if (!pooled) validateBaseUrl(flags.baseUrl, "--base-url");
  let apiKey: string | undefined;
  if (flags.apiKeyEnv !== undefined) {
    try {
      apiKey = apiKeyFromEnv(flags.apiKeyEnv, io.env);
    } catch (error) {
      throw new UsageError(`--api-key-env: ${error instanceof Error ? error.message : "invalid"}`);
    }
  }
  return {
    provider: "openai",
    ...(pooled ? {} : { baseUrl: flags.baseUrl as string }),
    canaryModel: modelLeftAtDefault ? DEFAULT_OPENAI_CANARY_MODEL : canaryModel,
    ...(apiKey !== undefined ? { apiKey } : {}),
  };
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
    .option("--canary-model <tag>", "canary model tag", DEFAULT_CANARY_MODEL_FLAG)
    .option("--ollama-url <url>", "Ollama endpoint (http or https origin)", "http://127.0.0.1:11434")
    .option("--timeout <seconds>", "per-call canary timeout (default: $LITTLE_CANARY_TIMEOUT, else 600)", timeoutArg)
    .option("--canary <backend>", "embedded or embedded:PATH.gguf: run the canary in this process with node-llama-cpp (docs/embedded.md)")
    .option("--canary-sha256 <hex>", "SHA-256 of the --canary embedded:PATH model file (required with a path: it is the model's identity)")
    .option("--model-dir <dir>", `where \`model pull\` keeps models, for --canary embedded without a path (default: $${MODEL_DIR_ENV}, else the user cache)`)
    .option("--no-canary", "structural layer only: the canary is not run and results say so")
    .hook("preAction", (self) => {
      // --canary BACKEND and --no-canary share one option value: keep the backend apart, and
      // `canary` a plain boolean (absent means on), as every command reads it.
      const value: unknown = self.getOptionValue("canary");
      const modelSource = self.getOptionValueSource("canaryModel");
      self.setOptionValue("canaryModelGiven", modelSource !== undefined && modelSource !== "default");
      self.setOptionValue("canaryBackend", typeof value === "string" ? value : undefined);
      self.setOptionValue("canary", value !== false);
    });
  return addPoolFlags(command);
}

/**
 * The embedded canary from --canary embedded[:PATH], --canary-sha256 and --model-dir, or null
 * without --canary. Everything that names another backend (--provider openai, --ollama-url, a
 * pool, a model tag) is refused with it, and so is a hash without a path.
 */
export function embeddedOptionsFromFlags(flags: CanaryFlags, io: Pick<CliIo, "cwd">): Pick<SecurityPipelineOptions, "provider" | "embedded"> | null {
  const raw = flags.canaryBackend;
  if (raw === undefined) {
    if (flags.canarySha256 !== undefined) throw new UsageError("--canary-sha256 needs --canary embedded:PATH");
    return null;
  }
  if (!flags.canary) throw new UsageError("give --canary or --no-canary, not both");
  const match = /^embedded(?::(.+))?$/s.exec(raw);
  if (match === null) throw new UsageError("--canary takes embedded or embedded:PATH.gguf (the HTTP canaries are chosen with --provider)");
  if (flags.provider === "openai") throw new UsageError("--canary embedded cannot be used with --provider openai");
  if (flags.ollamaUrlGiven === true) throw new UsageError("--canary embedded cannot be used with --ollama-url: it runs in this process");
  if ((flags.canaryEndpoint ?? []).length > 0) throw new UsageError("--canary embedded cannot be used with --canary-endpoint: it runs in this process");
  if (!modelLeftAtDefault(flags)) throw new UsageError("--canary-model names a served model; the embedded canary's model is its file (--canary embedded:PATH)");
  const path = match[1];
  if (path !== undefined && flags.canarySha256 === undefined) {
    throw new UsageError("--canary embedded:PATH needs --canary-sha256 HEX: the file's SHA-256 is the model's identity");
  }
  if (path === undefined && flags.canarySha256 !== undefined)
    throw new UsageError("--canary-sha256 needs a path (--canary embedded:PATH); the default model's hash is pinned");
  return {
    provider: "embedded",
    embedded: {
      ...(path !== undefined ? { modelPath: resolve(io.cwd, path), sha256: checkModelSha256(flags.canarySha256) } : {}),
      ...(flags.modelDir !== undefined ? { modelDir: resolve(io.cwd, flags.modelDir) } : {}),
      ...(flags.concurrency !== undefined ? { sequences: flags.concurrency } : {}),
    },
  };
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
    .option("--endpoint-log <file>", "append which pool endpoint answered each check, and its latency, to FILE (JSONL)")
    .hook("preAction", (self) => {
      const source = self.getOptionValueSource("ollamaUrl");
      self.setOptionValue("ollamaUrlGiven", source !== undefined && source !== "default");
    });
}

/** Whether --canary-model was left at its default (see CanaryFlags.canaryModelGiven). */
function modelLeftAtDefault(flags: Pick<CanaryFlags, "canaryModel" | "canaryModelGiven">): boolean {
  return flags.canaryModelGiven !== true && flags.canaryModel === DEFAULT_CANARY_MODEL_FLAG;
}

/**
 * The pipeline's warnings on the command's stderr, except a canary outage: every command that
 * checks reports that itself, once, with where the calls went and the fix (config/canary-warning.ts).
 */
export function cliPipelineWarnings(io: CliIo): NonNullable<SecurityPipelineOptions["onWarning"]> {
  return (message, code) => {
    if (code !== "canary_outage") void io.stderr.write(`warning: ${message}\n`);
  };
}

/** Pipeline options from the shared flags; validates the endpoint, the provider and the timeout. */
export function pipelineOptionsFromFlags(flags: CanaryFlags, io: CliIo): SecurityPipelineOptions {
  if (!flags.canaryModel || flags.canaryModel.trim() === "") throw new UsageError("--canary-model must not be empty");
  const embedded = embeddedOptionsFromFlags(flags, io);
  if (embedded !== null) {
    return {
      mode: flags.mode,
      canaryTimeout: resolveCanaryTimeout(flags.timeout, io.env),
      enableCanary: true,
      onDegraded: flags.failClosed ? "fail_closed" : "fail_open",
      onWarning: cliPipelineWarnings(io),
      ...embedded,
    };
  }
  const backend = providerOptionsFromFlags(flags, io, flags.canaryModel, modelLeftAtDefault(flags));
  const pool = poolOptionsFromFlags(flags, io);
  if (flags.canary && backend.provider !== "openai" && pool.canaryPool === undefined) validateServiceUrl(flags.ollamaUrl, "--ollama-url");
  return {
    mode: flags.mode,
    canaryModel: flags.canaryModel,
    ...(pool.canaryPool !== undefined ? pool : { ollamaUrl: flags.ollamaUrl }),
    canaryTimeout: resolveCanaryTimeout(flags.timeout, io.env),
    enableCanary: flags.canary,
    onDegraded: flags.failClosed ? "fail_closed" : "fail_open",
    onWarning: cliPipelineWarnings(io),
    ...backend,
  };
}
