// Turns the flags shared by commands that build a SecurityPipeline into its options, validating
// each and naming the flag in every refusal. Imported only by a command that runs (cli/flags.ts
// defines the flags).
import { resolveCanaryTimeout } from "../src/config/timeout.js";
import { UsageError } from "../src/core/errors.js";
import { resolve } from "node:path";
import { validateBaseUrl, validateServiceUrl } from "../src/canary/endpoint.js";
import { apiKeyFromEnv } from "../src/canary/openai-probe.js";
import { parsePoolEndpoints } from "../src/canary/pool-endpoints.js";
import { endpointLogWriter } from "../src/canary/pool-log.js";
import type { CanaryPoolConfig, SecurityPipelineOptions } from "../src/pipeline/options.js";
import { DEFAULT_CANARY_MODEL_FLAG, type CanaryFlags, type PoolFlags, type ProviderFlags } from "./flags.js";
import type { CliIo } from "./io.js";
import { checkModelSha256 } from "../src/canary/embedded-model-file.js";

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
function poolOptionsFromFlags(flags: CanaryFlags, io: CliIo): Pick<SecurityPipelineOptions, "canaryPool"> {
  const canaryPool = canaryPoolFromFlags(flags, io, flags.canary);
  return canaryPool === null ? {} : { canaryPool };
}

/** The model an OpenAI-compatible provider uses when --canary-model was left at its Ollama default. */
const DEFAULT_OPENAI_CANARY_MODEL = "gpt-4o-mini";

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
 * The embedded canary from --canary embedded[:PATH], --canary-sha256 and --model-dir, or null
 * without --canary. Everything that names another backend (--provider openai, --ollama-url, a
 * pool, a model tag) is refused with it, and so is a hash without a path.
 */
function embeddedOptionsFromFlags(flags: CanaryFlags, io: Pick<CliIo, "cwd">): Pick<SecurityPipelineOptions, "provider" | "embedded"> | null {
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

/** Whether --canary-model was left at its default (see CanaryFlags.canaryModelGiven). */
function modelLeftAtDefault(flags: Pick<CanaryFlags, "canaryModel" | "canaryModelGiven">): boolean {
  return flags.canaryModelGiven !== true && flags.canaryModel === DEFAULT_CANARY_MODEL_FLAG;
}

/**
 * The pipeline's warnings on the command's stderr, except a canary outage: every command that
 * checks reports that itself, once, with where the calls went and the fix (config/canary-warning.ts).
 */
function cliPipelineWarnings(io: CliIo): NonNullable<SecurityPipelineOptions["onWarning"]> {
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
