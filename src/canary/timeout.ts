// One validation for every canary timeout, shared by every command: finite seconds > 0 and at most
// MAX_TIMEOUT_SECONDS, from `--timeout`, else LITTLE_CANARY_TIMEOUT, else 600. NaN and Infinity are refused,
// unlike the original, because an infinite deadline is a hang and NaN disables the deadline entirely.
import { ConfigError, UsageError } from "../core/errors.js";

/**
 * The longest delay Node's timers hold, 2^31 - 1 ms (about 24.8 days): a longer one fires after
 * 1 ms instead (with only a process warning).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest timeout in seconds (MAX_TIMER_MS): a longer one would make every canary call time out at once. */
export const MAX_TIMEOUT_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** The rule a timeout is held to, in the words of every refusal. */
const TIMEOUT_RULE = `a finite positive number of seconds, at most ${MAX_TIMEOUT_SECONDS} (about 24.8 days)`;

/** Whether `value` is a timeout in seconds that a timer can hold. */
export function isTimeoutSeconds(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_SECONDS;
}

const DEFAULT_CANARY_TIMEOUT_SECONDS = 600;
/** The environment variable that sets the canary timeout in seconds. */
export const TIMEOUT_ENV = "LITTLE_CANARY_TIMEOUT";

/** Parses a user-supplied number of seconds; `null` when it is not a timeout (isTimeoutSeconds). */
function parseSeconds(raw: string): number | null {
  const text = raw.trim().replaceAll("_", "");
  if (!/^[+]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text)) return null;
  const value = Number(text);
  return isTimeoutSeconds(value) ? value : null;
}

/** Validates a `--timeout` flag value; throws UsageError naming the rule, not echoing junk. */
export function parseTimeoutFlag(raw: string): number {
  return checkFlag(parseSeconds(raw) ?? Number.NaN);
}

function checkFlag(value: number): number {
  if (!isTimeoutSeconds(value)) throw new UsageError(`invalid timeout: must be ${TIMEOUT_RULE}`);
  return value;
}

/** Resolves the canary timeout: flag, then environment, then the default. */
export function resolveCanaryTimeout(flag: number | undefined, env: Readonly<Record<string, string | undefined>> = process.env): number {
  if (flag !== undefined) return checkFlag(flag);
  const raw = env[TIMEOUT_ENV];
  if (raw === undefined || raw.trim() === "") return DEFAULT_CANARY_TIMEOUT_SECONDS;
  const value = parseSeconds(raw);
  if (value === null) throw new ConfigError(`${TIMEOUT_ENV} must be ${TIMEOUT_RULE}`);
  return value;
}
