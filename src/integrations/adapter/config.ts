// Adapter configuration from the environment, checked in a fixed order: failure mode first (so a
// bad mode is reported, never replaced by a default), then endpoint and timeout; the token file's
// content is read later, once, by the screener (readAdapterToken). Problems are values:
// `invalid adapter configuration (<rule>)`, never the raw value, the token file's path or its token.
import { readTokenFile } from "../../core/token-file.js";
import { FAILURE_MODE_ENV, parseFailureMode, type FailureMode } from "../classify.js";
import { parseCheckEndpoint, type EndpointParse, type ServiceEndpoint } from "./endpoint.js";

/** Environment variable naming the loopback `/check` URL. */
export const ENDPOINT_ENV = "LITTLE_CANARY_ENDPOINT";
/** Environment variable holding one screen's deadline in milliseconds. */
export const TIMEOUT_ENV = "LITTLE_CANARY_TIMEOUT_MS";
/** Environment variable naming the file that holds the service's bearer token (`serve --token-file`). */
export const TOKEN_FILE_ENV = "LITTLE_CANARY_TOKEN_FILE";

/** Bounds and default of an adapter's deadline, in milliseconds. */
export interface TimeoutLimits {
  readonly min: number;
  readonly max: number;
  readonly fallback: number;
}

/** The command hooks' and prompt plugins' deadline: 100–5000 ms, default 3000. */
export const HOOK_TIMEOUT_LIMITS: TimeoutLimits = Object.freeze({ min: 100, max: 5000, fallback: 3000 });

/** `invalid adapter configuration (<rule>)`: the wording every adapter reports. */
function invalidConfiguration(rule: string): string {
  return `invalid adapter configuration (${rule})`;
}

/** A timeout setting, validated: milliseconds, or the rule it broke. */
type TimeoutParse = { readonly ok: true; readonly timeoutMs: number } | { readonly ok: false; readonly error: string };

/**
 * An integer number of milliseconds within `limits`; unset or empty gives `limits.fallback`.
 * Decimal digits only: "3e3", "0x10" or " 300" are refused rather than guessed.
 */
function parseTimeoutMs(raw: unknown, limits: TimeoutLimits): TimeoutParse {
  const error = `timeout must be an integer from ${limits.min} to ${limits.max} milliseconds`;
  if (raw === undefined || raw === null || raw === "") return { ok: true, timeoutMs: limits.fallback };
  const value = typeof raw === "number" ? raw : typeof raw === "string" && /^[0-9]{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isInteger(value) && value >= limits.min && value <= limits.max ? { ok: true, timeoutMs: value } : { ok: false, error };
}

/** The environment as adapters read it. */
export type AdapterEnv = Readonly<Record<string, string | undefined>>;

/**
 * The configuration read from the environment: everything needed to screen, or the problem.
 * `failureMode` is null only when the mode itself is invalid.
 */
export type AdapterConfig =
  | {
      readonly ok: true;
      readonly failureMode: FailureMode;
      readonly endpoint: ServiceEndpoint;
      readonly timeoutMs: number;
      /** LITTLE_CANARY_TOKEN_FILE (trimmed), or null when unset or empty: no token is sent. */
      readonly tokenFile: string | null;
    }
  | { readonly ok: false; readonly failureMode: FailureMode | null; readonly problem: string };

/**
 * Reads LITTLE_CANARY_FAILURE_MODE, LITTLE_CANARY_ENDPOINT, LITTLE_CANARY_TIMEOUT_MS and the name in
 * LITTLE_CANARY_TOKEN_FILE. An invalid failure mode is reported fail-open style, never read as allow.
 */
export function readAdapterEnv(env: AdapterEnv, limits: TimeoutLimits = HOOK_TIMEOUT_LIMITS): AdapterConfig {
  return adapterConfig(env, parseCheckEndpoint(env[ENDPOINT_ENV]), env[TIMEOUT_ENV], limits);
}

/** The configuration of the failure mode in `env`, a validated endpoint setting and a raw timeout, checked in that order. */
export function adapterConfig(env: AdapterEnv, endpoint: EndpointParse, rawTimeout: unknown, limits: TimeoutLimits): AdapterConfig {
  const mode = parseFailureMode(env[FAILURE_MODE_ENV]);
  if (!mode.ok) return { ok: false, failureMode: null, problem: invalidConfiguration(mode.error) };
  if (!endpoint.ok) return { ok: false, failureMode: mode.mode, problem: invalidConfiguration(endpoint.error) };
  const timeout = parseTimeoutMs(rawTimeout, limits);
  if (!timeout.ok) return { ok: false, failureMode: mode.mode, problem: invalidConfiguration(timeout.error) };
  const tokenFile = env[TOKEN_FILE_ENV]?.trim() ?? "";
  return { ok: true, failureMode: mode.mode, endpoint: endpoint.endpoint, timeoutMs: timeout.timeoutMs, tokenFile: tokenFile === "" ? null : tokenFile };
}

/** The bearer token to send (null: none), or the configuration problem of its file. */
export type AdapterToken = { readonly ok: true; readonly token: string | null } | { readonly ok: false; readonly problem: string };

/**
 * The token in `tokenFile`, read by the service's own rules (core/token-file.ts): a file the service
 * would refuse, or one that is missing, unreadable or empty, is a configuration problem naming
 * LITTLE_CANARY_TOKEN_FILE and the rule, never the path or a byte of the file.
 */
export async function readAdapterToken(tokenFile: string | null, platform: NodeJS.Platform = process.platform): Promise<AdapterToken> {
  if (tokenFile === null) return { ok: true, token: null };
  const read = await readTokenFile(tokenFile, platform);
  return read.ok ? read : { ok: false, problem: invalidConfiguration(`${TOKEN_FILE_ENV}: ${read.problem}`) };
}
