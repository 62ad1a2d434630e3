// One validation for every canary timeout, shared by every command: finite seconds > 0, from `--timeout`, else
// LITTLE_CANARY_TIMEOUT, else 600. NaN and Infinity are refused, unlike the original, because an infinite deadline is
// a hang and NaN disables the deadline entirely.
import { ConfigError, UsageError } from "../core/errors.js";

const DEFAULT_CANARY_TIMEOUT_SECONDS = 600;
/** The environment variable that sets the canary timeout in seconds. */
export const TIMEOUT_ENV = "LITTLE_CANARY_TIMEOUT";

/** Parses a user-supplied number of seconds; `null` when it is not a finite positive number. */
function parseSeconds(raw: string): number | null {
  const text = raw.trim().replaceAll("_", "");
  if (!/^[+]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** Validates a `--timeout` flag value; throws UsageError naming the rule, not echoing junk. */
export function parseTimeoutFlag(raw: string): number {
  return checkFlag(parseSeconds(raw) ?? Number.NaN);
}

function checkFlag(value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new UsageError("invalid timeout: must be a finite positive number of seconds");
  return value;
}

/** Resolves the canary timeout: flag, then environment, then the default. */
export function resolveCanaryTimeout(flag: number | undefined, env: Readonly<Record<string, string | undefined>> = process.env): number {
  if (flag !== undefined) return checkFlag(flag);
  const raw = env[TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_CANARY_TIMEOUT_SECONDS;
  const value = parseSeconds(raw);
  if (value === null) throw new ConfigError(`${TIMEOUT_ENV} must be a finite positive number of seconds`);
  return value;
}
