// Validation of the options shared by the probes and the judges: a caller's mistake throws
// UsageError at construction, long before any text is screened.
import { ConfigError, UsageError } from "../core/errors.js";

export function checkTimeoutSeconds(value: unknown, name = "timeoutSeconds"): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`${name} must be a finite number of seconds greater than 0`);
  }
  return value;
}

/** A positive safe integer (a token budget, a window size, a count); throws `Refusal` (UsageError unless told) naming it. */
export function checkPositiveInteger(value: unknown, name: string, Refusal: typeof UsageError | typeof ConfigError = UsageError): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new Refusal(`${name} must be a positive integer`);
  }
  return value;
}

export function checkTemperature(value: unknown, name = "temperature"): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${name} must be a finite number >= 0`);
  }
  return value;
}

function checkSeed(value: unknown, name = "seed"): number | null {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new UsageError(`${name} must be an integer or null`);
  }
  return value;
}

/** Model tags are echoed in messages and manifests, so they are bounded and single-line. */
function checkModel(value: unknown, name = "model"): string {
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`${name} must be a non-empty string`);
  if (value.length > 200 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new UsageError(`${name} must be at most 200 characters without control characters`);
  }
  return value;
}

export function checkNumCtx(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError("numCtx must be a positive integer or null");
  }
  return value;
}

export function checkSystemPrompt(value: unknown, name = "systemPrompt"): string {
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`${name} must be a non-empty string`);
  return value;
}

/** A finite, non-negative backend number, else null (nothing non-finite is kept or serialized). */
export function finiteNonNegative(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** The validated generation settings of every chat client and canary backend, as fields its class inherits. */
export abstract class ChatSettings {
  readonly model: string;
  readonly timeoutSeconds: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;

  protected constructor(settings: ChatSettings) {
    ({ model: this.model, timeoutSeconds: this.timeoutSeconds, maxTokens: this.maxTokens, temperature: this.temperature, seed: this.seed } = settings);
  }
}

/** Validated chat settings from caller options and the client's defaults; `role` prefixes the option names in messages ("judge seed …"). */
export function resolveChatSettings(
  options: { readonly [Setting in keyof ChatSettings]?: unknown },
  defaults: { readonly model: string; readonly timeoutSeconds: number; readonly maxTokens: number },
  role = "",
): ChatSettings {
  const name = (option: string): string => (role ? `${role} ${option}` : option);
  return {
    model: checkModel(options.model ?? defaults.model, name("model")),
    timeoutSeconds: checkTimeoutSeconds(options.timeoutSeconds ?? defaults.timeoutSeconds, name("timeoutSeconds")),
    maxTokens: checkPositiveInteger(options.maxTokens ?? defaults.maxTokens, name("maxTokens")),
    temperature: checkTemperature(options.temperature ?? 0, name("temperature")),
    seed: checkSeed(options.seed === undefined ? 42 : options.seed, name("seed")),
  };
}

/** An API key is optional; when given it must be a string (it is never shown anywhere). */
export function checkApiKey(value: unknown): string {
  if (value !== undefined && typeof value !== "string") throw new UsageError("apiKey must be a string");
  return value ?? "";
}

/** Reads an API key from the environment variable `name`; unset or empty is a ConfigError naming the variable, never a value. */
export function apiKeyFromEnv(name: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) {
    throw new UsageError("API key environment variable name must be a valid variable name");
  }
  const value = env[name];
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigError(`environment variable ${name} is not set or empty; it must hold the API key`);
  }
  return value;
}
