// Adapter configuration from the environment, checked in a fixed order: failure mode first (so a
// bad mode is reported, never replaced by a default), then endpoint and timeout; the token file's
// content is read later, once, by the screener (readAdapterToken). Problems are values:
// `invalid adapter configuration (<rule>)`, never the raw value, the token file's path or its token.
// Where an adapter may send a prompt: the loopback screening service (127.0.0.1, localhost or
// [::1]) and nowhere else, validated before any request; the raw value, which may carry a token,
// is never echoed. `localhost` is connected to 127.0.0.1 without the resolver, so a hosts file
// mapping it elsewhere receives nothing; with no redirects (client.ts) and no proxies (node:http
// ignores them), the validated address is the only one that ever sees the text.
import { parseUrl } from "../../core/guards.js";
import { readTokenFile } from "../../core/token-file.js";
import { FAILURE_MODE_ENV, parseFailureMode, type FailureMode } from "../classify.js";

/** The check URL an adapter uses when LITTLE_CANARY_ENDPOINT is unset. */
export const DEFAULT_CHECK_ENDPOINT = "http://127.0.0.1:18421/check";
/** The service origin OpenClaw uses when `serviceUrl` is unset. */
export const DEFAULT_SERVICE_ORIGIN = "http://127.0.0.1:18421";
/** The rule a refused LITTLE_CANARY_ENDPOINT breaks (reported instead of the value). */
const ENDPOINT_RULE = "endpoint must be an HTTP loopback /check URL without credentials or query data";
/** The rule a refused OpenClaw `serviceUrl` breaks (reported instead of the value). */
const SERVICE_URL_RULE = "service URL must be an HTTP loopback origin without credentials, path or query data";

const MAX_URL_CHARS = 2048;
const CONNECT_HOSTS = new Map([
  ["127.0.0.1", "127.0.0.1"],
  ["localhost", "127.0.0.1"],
  ["[::1]", "::1"],
]);

/** A validated loopback service: where to connect, what Host header to send, which paths to ask. */
export interface ServiceEndpoint {
  readonly connectHost: string;
  readonly port: number;
  readonly hostHeader: string;
  readonly checkPath: "/check";
  readonly healthPath: "/health";
  readonly origin: string;
}

/** An endpoint setting, validated: the endpoint, or the rule it broke. */
export type EndpointParse = { readonly ok: true; readonly endpoint: ServiceEndpoint } | { readonly ok: false; readonly error: string };

function parseLoopback(raw: unknown, expectedPath: string): ServiceEndpoint | null {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_URL_CHARS) return null;
  // Query, fragment, userinfo and whitespace are refused on the raw text: URL parsing would drop
  // an empty "?" or "#" silently, and a refused shape must stay refused however it is spelled.
  if (/[?#@\s\\]/u.test(raw) || /[\u0000-\u001f\u007f]/u.test(raw)) return null;
  const url = parseUrl(raw);
  if (url === null) return null;
  if (url.protocol !== "http:" || url.username !== "" || url.password !== "") return null;
  if (url.search !== "" || url.hash !== "" || url.pathname !== expectedPath) return null;
  const connectHost = CONNECT_HOSTS.get(url.hostname);
  if (connectHost === undefined) return null;
  const port = url.port === "" ? 80 : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return {
    connectHost,
    port,
    hostHeader: url.host,
    checkPath: "/check",
    healthPath: "/health",
    origin: `http://${url.host}`,
  };
}

/** A loopback setting: unset or empty means `fallback`; anything refused is reported as `rule`, never echoed. */
function loopbackSetting(fallback: string, path: string, rule: string): (raw: unknown) => EndpointParse {
  return (raw) => {
    const endpoint = parseLoopback(raw === undefined || raw === null || raw === "" ? fallback : raw, path);
    return endpoint ? { ok: true, endpoint } : { ok: false, error: rule };
  };
}

/** LITTLE_CANARY_ENDPOINT for the prompt adapters: `http://<loopback>[:port]/check`; unset or empty means the default endpoint. */
export const parseCheckEndpoint = loopbackSetting(DEFAULT_CHECK_ENDPOINT, "/check", ENDPOINT_RULE);

/** OpenClaw's `serviceUrl`: an origin (`http://<loopback>[:port]`, path "/" or none); the check URL is `<origin>/check`. Unset means the default origin. */
export const parseServiceOrigin = loopbackSetting(DEFAULT_SERVICE_ORIGIN, "/", SERVICE_URL_RULE);

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
 * LITTLE_CANARY_TOKEN_FILE. An invalid failure mode is reported (`failureMode` null) and counts as deny, never as allow.
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

/**
 * The failure mode a configuration works under: its own, or `deny` when the setting itself is
 * invalid (a value the user meant to set, never read as `allow`).
 */
export function failureModeOf(config: AdapterConfig): FailureMode {
  return config.failureMode ?? "deny";
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
