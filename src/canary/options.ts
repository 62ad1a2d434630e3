// Validation of the options the probes and judges share: a caller's mistake throws UsageError at construction, before any text is screened.
import { ConfigError, UsageError } from "../core/errors.js";
import { isTimeoutSeconds, MAX_TIMEOUT_SECONDS } from "./timeout.js";

/** `value` when `valid`, else throws `Refusal` (UsageError unless told) with `message`: the skeleton of every check below. */
function checked<T>(value: unknown, valid: boolean, message: string, Refusal: typeof UsageError | typeof ConfigError = UsageError): T {
  if (!valid) throw new Refusal(message);
  return value as T;
}

const isFiniteNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** A timeout in seconds a timer can hold (isTimeoutSeconds); throws UsageError naming it. */
export function checkTimeoutSeconds(value: unknown, name: string): number {
  return checked(value, isTimeoutSeconds(value), `${name} must be a finite number of seconds greater than 0 and at most ${MAX_TIMEOUT_SECONDS}`);
}

/** A positive safe integer (a token budget, a window size, a count); throws `Refusal` (UsageError unless told) naming it. */
export function checkPositiveInteger(value: unknown, name: string, Refusal: typeof UsageError | typeof ConfigError = UsageError): number {
  return checked(value, Number.isSafeInteger(value) && (value as number) >= 1, `${name} must be a positive integer`, Refusal);
}

export function checkTemperature(value: unknown, name = "temperature"): number {
  return checked(value, isFiniteNumber(value) && value >= 0, `${name} must be a finite number >= 0`);
}

/** Model tags are echoed in messages and manifests, so they are bounded and single-line. */
function checkModel(value: unknown, name: string): string {
  const model = checked<string>(value, typeof value === "string" && value.trim() !== "", `${name} must be a non-empty string`);
  return checked(model, model.length <= 200 && !/[\u0000-\u001f\u007f]/.test(model), `${name} must be at most 200 characters without control characters`);
}

export function checkNumCtx(value: unknown): number | null {
  return checked(value ?? null, value == null || (Number.isSafeInteger(value) && (value as number) > 0), "numCtx must be a positive integer or null");
}

export function checkSystemPrompt(value: unknown): string {
  return checked(value, typeof value === "string" && value.trim() !== "", "systemPrompt must be a non-empty string");
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
  const seed = options.seed === undefined ? 42 : options.seed;
  return {
    model: checkModel(options.model ?? defaults.model, name("model")),
    timeoutSeconds: checkTimeoutSeconds(options.timeoutSeconds ?? defaults.timeoutSeconds, name("timeoutSeconds")),
    maxTokens: checkPositiveInteger(options.maxTokens ?? defaults.maxTokens, name("maxTokens")),
    temperature: checkTemperature(options.temperature ?? 0, name("temperature")),
    seed: checked(seed, seed === null || Number.isSafeInteger(seed), `${name("seed")} must be an integer or null`),
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
