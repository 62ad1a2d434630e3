// The canary settings every checking verb shares, resolved once into frozen SecurityPipeline
// options. A rule SecurityPipeline holds too is its function, given our labels. Refusals name the
// setting by the caller's label (`FLAG_LABELS` for the CLI, `OPTION_LABELS` for a library caller),
// so one rule has one message template, whichever door the setting came through.
import { resolve } from "node:path";
import { validateBaseUrl, validateServiceUrl } from "../canary/endpoint.js";
import { checkModelSha256, modelCacheDir } from "../canary/embedded-models.js";
import { DEFAULT_CANARY_MODEL, DEFAULT_OPENAI_MODEL } from "../canary/defaults.js";
import { apiKeyFromEnv } from "../canary/options.js";
import { endpointLogWriter, parsePoolEndpoints } from "../canary/pool-endpoints.js";
import { resolveCanaryTimeout } from "../canary/timeout.js";
import { appendTargetProblem } from "../core/append.js";
import { displayText } from "../core/display-text.js";
import { UsageError } from "../core/errors.js";
import { nonEmpty, refuseServedCanary, refuseUnpairedModelFile, urlBesidePool, type CanaryPoolConfig, type OptionLabels } from "../canary/pipeline-options.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";

/** Every canary setting of a checking verb, as plain values. */
export interface CanarySettings {
  /** Which kind of server the canary runs on; absent means ollama (the default). */
  provider?: "ollama" | "openai";
  baseUrl?: string;
  /** The name of the environment variable holding the API key (with provider openai). */
  apiKeyEnv?: string;
  /** `URL[#N]`, one per endpoint: a pool in place of ollamaUrl or baseUrl. */
  canaryEndpoint?: string[];
  /** A file that receives which pool endpoint answered each check (JSONL). */
  endpointLog?: string;
  /** ollamaUrl was given by the user, not defaulted (only an explicit one conflicts with a pool). */
  ollamaUrlGiven?: boolean;
  mode: "block" | "advisory" | "full";
  canaryModel: string;
  /** canaryModel was given, not defaulted. Absent: a model equal to the default counts as the default. */
  canaryModelGiven?: boolean;
  ollamaUrl: string;
  /** Seconds per canary call; absent: LITTLE_CANARY_TIMEOUT, else 600. */
  timeout?: number;
  /** False: the structural layer only. */
  canary: boolean;
  /** `embedded` or `embedded:PATH`: run the canary in this process (docs/embedded.md). */
  canaryBackend?: string;
  /** The SHA-256 of the `embedded:PATH` file. */
  canarySha256?: string;
  /** Where `model pull` keeps models (for the embedded canary without a path). */
  modelDir?: string;
  /** Checks in flight: the embedded canary gets one context sequence per slot. */
  concurrency?: number;
  failClosed?: boolean;
}

/** The provider settings: which kind of server the canary runs on. */
export type ProviderSettings = Pick<CanarySettings, "provider" | "baseUrl" | "apiKeyEnv">;
/** The pool settings: a pool of canary endpoints in place of one URL. */
export type PoolSettings = Pick<CanarySettings, "canaryEndpoint" | "endpointLog" | "ollamaUrlGiven" | "provider">;

/** The labels of the CLI: its flags. */
export const FLAG_LABELS = Object.freeze({
  canaryModel: "--canary-model",
  ollamaUrl: "--ollama-url",
  canaryPool: "--canary-endpoint",
  embedded: "--canary embedded",
  modelPath: "--canary embedded:PATH",
  endpointLog: "--endpoint-log",
  provider: "--provider",
  baseUrl: "--base-url",
  apiKeyEnv: "--api-key-env",
  canaryBackend: "--canary",
  noCanary: "--no-canary",
  canarySha256: "--canary-sha256",
  needsSha256: "--canary-sha256 HEX",
  needsPath: "a path (--canary embedded:PATH)",
  judgeModel: "--judge-model",
  modelDir: "--model-dir",
} satisfies OptionLabels & Record<string, string>);

/** The name each setting goes by in a refusal. */
export type SettingLabels = { readonly [name in keyof typeof FLAG_LABELS]: string };

/** The labels of a library caller: each setting's own option name, but for these. */
export const OPTION_LABELS: SettingLabels = Object.freeze({
  ...(Object.fromEntries(Object.keys(FLAG_LABELS).map((name) => [name, name])) as SettingLabels),
  canaryPool: "canaryEndpoint",
  embedded: "canaryBackend embedded",
  modelPath: "canaryBackend embedded:PATH",
  noCanary: "canary: false",
  needsSha256: "canarySha256 HEX",
  needsPath: "a path (canaryBackend embedded:PATH)",
});

/** What resolving reads besides the settings: where relative paths start, the environment, and where warnings go. */
export interface SettingsContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** One operational warning (no prefix, no newline). */
  readonly warn: (message: string) => void;
  /** How refusals name the settings (default OPTION_LABELS). */
  readonly labels?: SettingLabels;
  /** The caller's diagnostic stream (a VerbIo's reporter): `endpointLog` `-` writes there. Default: process.stderr. */
  readonly reporter?: { readonly write: (text: string) => void };
}

/** The canary pool `canaryEndpoint` asks for (in place of ollamaUrl), or null; warnings go to `warn`, attempts to endpointLog. */
export function canaryPoolFromSettings(settings: PoolSettings, context: SettingsContext, canary: boolean): CanaryPoolConfig | null {
  const l = context.labels ?? OPTION_LABELS;
  const raws = settings.canaryEndpoint ?? [];
  if (raws.length === 0) {
    if (settings.endpointLog !== undefined) throw new UsageError(`${l.endpointLog} needs ${l.canaryPool}: it logs the endpoints of a pool`);
    return null;
  }
  if (settings.ollamaUrlGiven === true) throw urlBesidePool(l.ollamaUrl, l.canaryPool);
  if (!canary) throw new UsageError(`${l.canaryPool} cannot be used with ${l.noCanary}`);
  // OpenAI-compatible replicas are named by their base URLs (…/v1), Ollama ones by their origins.
  const endpoints = parsePoolEndpoints(raws, l.canaryPool, settings.provider === "openai" ? "base_url" : "origin");
  if (settings.endpointLog !== undefined && settings.endpointLog.trim() === "") throw new UsageError(`${l.endpointLog} must not be empty`);
  const log = settings.endpointLog === undefined ? null : endpointLogTarget(settings.endpointLog, context, l);
  return {
    endpoints,
    onWarning: context.warn,
    ...(log !== null ? { onAttempt: endpointLogWriter(log) } : {}),
  };
}

/**
 * The endpoint log values that name the standard error stream rather than a file (`path`: the value resolved): `-`, and
 * /dev/stderr, which is a symlink on Linux (so an append, never through a symlink, would refuse it) and whose fd a
 * synchronous write could find full (EAGAIN on a non-blocking pipe). Both go through the caller's stream instead.
 */
export function isStderrEndpointLog(value: string, path: string): boolean {
  return value === "-" || path === "/dev/stderr";
}

/**
 * Where the endpoint log goes: `-` or /dev/stderr is the caller's stderr stream (its lines written through the stream,
 * which queues them, never to fd 2 directly); anything else a file the append checks first, so a symlink, a FIFO or a
 * directory (another special file) is still refused before the run.
 */
function endpointLogTarget(value: string, context: SettingsContext, l: SettingLabels): string | ((line: string) => void) {
  const path = resolve(context.cwd, value);
  if (isStderrEndpointLog(value, path)) return context.reporter?.write ?? ((line) => void process.stderr.write(line));
  const problem = appendTargetProblem(path);
  if (problem !== null) throw new UsageError(`${l.endpointLog}: ${displayText(value)} ${problem}`);
  return path;
}

/**
 * The backend part of the pipeline options from provider, baseUrl and apiKeyEnv. Only a model left
 * at the Ollama default (`modelLeftAtDefault`) becomes the OpenAI default; a model the user typed is kept.
 */
export function providerOptionsFromSettings(
  settings: ProviderSettings & Pick<PoolSettings, "canaryEndpoint">,
  context: Pick<SettingsContext, "env" | "labels">,
  canaryModel: string,
  modelLeftAtDefault = false,
): Pick<SecurityPipelineOptions, "provider" | "baseUrl" | "apiKey" | "canaryModel"> {
  const l = context.labels ?? OPTION_LABELS;
  if (settings.provider !== "openai") {
    if (settings.baseUrl !== undefined) throw new UsageError(`${l.baseUrl} needs ${l.provider} openai (the Ollama endpoint is ${l.ollamaUrl})`);
    if (settings.apiKeyEnv !== undefined) throw new UsageError(`${l.apiKeyEnv} needs ${l.provider} openai`);
    return {};
  }
  const pooled = (settings.canaryEndpoint ?? []).length > 0;
  if (pooled && settings.baseUrl !== undefined) throw urlBesidePool(l.baseUrl, l.canaryPool);
  if (!pooled && (settings.baseUrl === undefined || settings.baseUrl.trim() === ""))
    throw new UsageError(`${l.provider} openai needs ${l.baseUrl} (or ${l.canaryPool})`);
  if (!pooled) validateBaseUrl(settings.baseUrl, l.baseUrl);
  let apiKey: string | undefined;
  if (settings.apiKeyEnv !== undefined) {
    try {
      apiKey = apiKeyFromEnv(settings.apiKeyEnv, context.env);
    } catch (error) {
      throw new UsageError(`${l.apiKeyEnv}: ${error instanceof Error ? error.message : "invalid"}`);
    }
  }
  return {
    provider: "openai",
    ...(pooled ? {} : { baseUrl: settings.baseUrl as string }),
    canaryModel: modelLeftAtDefault ? DEFAULT_OPENAI_MODEL : canaryModel,
    ...(apiKey !== undefined ? { apiKey } : {}),
  };
}

/** The embedded canary from canaryBackend `embedded[:PATH]`, or null; anything naming another backend is refused with it. */
function embeddedOptions(settings: CanarySettings, context: SettingsContext, l: SettingLabels): Pick<SecurityPipelineOptions, "provider" | "embedded"> | null {
  // `model pull`'s own rule (an empty directory is refused, never the current one), checked whatever the backend, so
  // an unset shell variable in `--model-dir "$DIR"` is caught before a run that would load from it.
  const modelDir = settings.modelDir === undefined ? undefined : modelCacheDir(context.env, settings.modelDir, context.cwd, l.modelDir);
  const raw = settings.canaryBackend;
  if (raw === undefined) {
    if (settings.canarySha256 !== undefined) throw new UsageError(`${l.canarySha256} needs ${l.modelPath}`);
    return null;
  }
  if (!settings.canary) throw new UsageError(`give ${l.canaryBackend} or ${l.noCanary}, not both`);
  const match = /^embedded(?::(.+))?$/s.exec(raw);
  if (match === null) throw new UsageError(`${l.canaryBackend} takes embedded or embedded:PATH.gguf (the HTTP canaries are chosen with ${l.provider})`);
  if (settings.provider === "openai") throw new UsageError(`${l.embedded} cannot be used with ${l.provider} openai`);
  if (settings.ollamaUrlGiven === true) throw new UsageError(`${l.embedded} cannot be used with ${l.ollamaUrl}: it runs in this process`);
  refuseServedCanary({ pool: (settings.canaryEndpoint ?? []).length > 0, canaryModel: modelLeftAtDefault(settings) ? undefined : settings.canaryModel }, l);
  const path = match[1];
  refuseUnpairedModelFile({ path: path !== undefined, sha256: settings.canarySha256 !== undefined }, l);
  return {
    provider: "embedded",
    embedded: {
      ...(path !== undefined ? { modelPath: resolve(context.cwd, path), sha256: checkModelSha256(settings.canarySha256, l.canarySha256) } : {}),
      ...(modelDir !== undefined ? { modelDir } : {}),
      ...(settings.concurrency !== undefined ? { sequences: settings.concurrency } : {}),
    },
  };
}

/** Whether canaryModel was left at its default (see CanarySettings.canaryModelGiven). */
function modelLeftAtDefault(settings: Pick<CanarySettings, "canaryModel" | "canaryModelGiven">): boolean {
  return settings.canaryModelGiven !== true && settings.canaryModel === DEFAULT_CANARY_MODEL;
}

/** The Ollama or OpenAI-compatible canary: its model, its endpoint or pool, and its provider. */
function servedOptions(settings: CanarySettings, context: SettingsContext, l: SettingLabels): Readonly<SecurityPipelineOptions> {
  const backend = providerOptionsFromSettings(settings, context, settings.canaryModel, modelLeftAtDefault(settings));
  const canaryPool = canaryPoolFromSettings(settings, context, settings.canary);
  // Checked with the canary off too: a malformed value is a mistake either way, and the pipeline
  // would otherwise refuse it later under the library's option name (or, for some commands, not at all).
  if (backend.provider !== "openai" && canaryPool === null) validateServiceUrl(settings.ollamaUrl, l.ollamaUrl);
  return { canaryModel: settings.canaryModel, ...(canaryPool !== null ? { canaryPool } : { ollamaUrl: settings.ollamaUrl }), ...backend };
}

/**
 * The SecurityPipeline options the settings ask for, resolved once and frozen. Throws UsageError
 * (ConfigError for a bad environment) naming the setting by its label.
 */
export function resolveCanarySettings(settings: CanarySettings, context: SettingsContext): Readonly<SecurityPipelineOptions> {
  const l = context.labels ?? OPTION_LABELS;
  nonEmpty(l.canaryModel, settings.canaryModel);
  const backend = embeddedOptions(settings, context, l) ?? servedOptions(settings, context, l);
  // A canary outage is not passed on: every checking verb reports it itself, once, with its fix (pipeline/canary-warning.ts).
  const onWarning: SecurityPipelineOptions["onWarning"] = (message, code) => {
    if (code !== "canary_outage") context.warn(message);
  };
  const canaryTimeout = resolveCanaryTimeout(settings.timeout, context.env);
  const onDegraded = settings.failClosed ? "fail_closed" : "fail_open";
  return Object.freeze({ mode: settings.mode, canaryTimeout, enableCanary: settings.canary, onDegraded, onWarning, ...backend });
}
