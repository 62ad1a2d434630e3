// Adapter configuration from the environment, checked in the order of cli-server-demo.md §5.1:
// failure mode first (so a bad mode is reported, never replaced by a default), then endpoint and
// timeout. Problems are values: `invalid adapter configuration (<rule>)`, never the raw value.
import { FAILURE_MODE_ENV, parseFailureMode } from "./classify.mjs";
import { parseCheckEndpoint } from "./endpoint.mjs";

export const ENDPOINT_ENV = "LITTLE_CANARY_ENDPOINT";
export const TIMEOUT_ENV = "LITTLE_CANARY_TIMEOUT_MS";
export const HOOK_TIMEOUT_LIMITS = Object.freeze({ min: 100, max: 5000, fallback: 3000 });

/** `invalid adapter configuration (<rule>)`: the wording every adapter reports. */
export function invalidConfiguration(rule) {
  return `invalid adapter configuration (${rule})`;
}

/**
 * An integer number of milliseconds within `limits`; unset or empty gives `limits.fallback`.
 * Decimal digits only: "3e3", "0x10" or " 300" are refused rather than guessed.
 * @param {unknown} raw
 * @param {{ min: number, max: number, fallback: number }} limits
 * @returns {{ ok: true, timeoutMs: number } | { ok: false, error: string }}
 */
export function parseTimeoutMs(raw, limits) {
  const error = `timeout must be an integer from ${limits.min} to ${limits.max} milliseconds`;
  if (raw === undefined || raw === null || raw === "") return { ok: true, timeoutMs: limits.fallback };
  if (typeof raw === "number") {
    return Number.isInteger(raw) && raw >= limits.min && raw <= limits.max ? { ok: true, timeoutMs: raw } : { ok: false, error };
  }
  if (typeof raw !== "string" || !/^[0-9]{1,6}$/.test(raw)) return { ok: false, error };
  const value = Number(raw);
  return value >= limits.min && value <= limits.max ? { ok: true, timeoutMs: value } : { ok: false, error };
}

/**
 * Reads LITTLE_CANARY_FAILURE_MODE, LITTLE_CANARY_ENDPOINT and LITTLE_CANARY_TIMEOUT_MS.
 * `failureMode` is null only when the mode itself is invalid; the adapters then report the
 * problem in their fail-open style without screening (§5.1: "reported, never silently allow").
 * @param {Record<string, string | undefined>} env
 * @param {{ min: number, max: number, fallback: number }} [limits]
 */
export function readAdapterEnv(env, limits = HOOK_TIMEOUT_LIMITS) {
  const mode = parseFailureMode(env[FAILURE_MODE_ENV]);
  if (!mode.ok) return { ok: false, failureMode: null, problem: invalidConfiguration(mode.error) };
  const endpoint = parseCheckEndpoint(env[ENDPOINT_ENV]);
  if (!endpoint.ok) return { ok: false, failureMode: mode.mode, problem: invalidConfiguration(endpoint.error) };
  const timeout = parseTimeoutMs(env[TIMEOUT_ENV], limits);
  if (!timeout.ok) return { ok: false, failureMode: mode.mode, problem: invalidConfiguration(timeout.error) };
  return { ok: true, failureMode: mode.mode, endpoint: endpoint.endpoint, timeoutMs: timeout.timeoutMs };
}
