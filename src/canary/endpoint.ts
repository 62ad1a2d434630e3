// Canary and judge endpoints: a redacted origin, a loopback/remote class, strict validators; a URL may hold secrets, so none is returned or thrown.
import { UsageError } from "../core/errors.js";
import { parseUrl } from "../core/guards.js";

const INVALID_ENDPOINT = "<invalid endpoint>";
/** Where an endpoint points: this machine (loopback), another machine, or nowhere valid. */
export type EndpointClass = "loopback" | "remote" | "invalid";

/** Longest URL we try to parse; a longer one is invalid rather than a parsing cost. */
const MAX_URL_CHARS = 4096;
const MAX_ORIGIN_CHARS = 200;

function parseHttpUrl(url: unknown): URL | null {
  if (typeof url !== "string" || url.length === 0 || url.length > MAX_URL_CHARS) return null;
  const parsed = parseUrl(url);
  if (parsed === null) return null;
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  if (parsed.hostname === "") return null;
  return parsed;
}

/** Lowercase `scheme://host[:port]` of `url` (no userinfo, path, query or default port), or `<invalid endpoint>`. */
export function endpointOrigin(url: unknown): string {
  const parsed = parseHttpUrl(url);
  if (!parsed) return INVALID_ENDPOINT;
  // URL.host is already lowercased, punycoded and bracketed for IPv6; it never holds userinfo.
  const origin = `${parsed.protocol}//${parsed.host}`.toLowerCase();
  return origin.length <= MAX_ORIGIN_CHARS ? origin : INVALID_ENDPOINT;
}

/** `loopback` for localhost, any 127.0.0.0/8 address or ::1; `remote` otherwise; `invalid` if unparseable. */
export function endpointClass(url: unknown): EndpointClass {
  const parsed = parseHttpUrl(url);
  if (!parsed || endpointOrigin(url) === INVALID_ENDPOINT) return "invalid";
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  // URL parsing has already normalised IPv4 forms such as 127.1 or 0x7f.1 to dotted quads.
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ? "loopback" : "remote";
}

/**
 * The refusal of a value of `flagName` that is not an http(s) URL at all. It says what one holds,
 * since the value itself is not echoed (it may hold a key): `http://127.0.0.1:99999` is refused
 * for its port, which "must be an http or https URL" alone leaves the user to guess.
 */
export function notAnHttpUrl(flagName: string): UsageError {
  return new UsageError(`${flagName} must be an http or https URL: the scheme http or https, a host, and a port, if one is given, from 1 to 65535`);
}

/** Validates an http(s) origin given as `flagName` (e.g. `--ollama-url`; no path beyond "/") and returns it normalised. */
export function validateServiceUrl(url: unknown, flagName: string): string {
  const parsed = parseHttpUrl(url);
  // Port 0 parses, but nothing can be reached there.
  if (!parsed || typeof url !== "string" || parsed.port === "0") {
    throw notAnHttpUrl(flagName);
  }
  // Checked on the raw text too: WHATWG parsing turns "http://h/?" and "http://@h" into empty parts that would slip through.
  const afterScheme = url.slice(url.indexOf("//") + 2);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? "";
  if (parsed.username !== "" || parsed.password !== "" || authority.includes("@")) {
    throw new UsageError(`${flagName} must not contain user info`);
  }
  if (parsed.search !== "" || parsed.hash !== "" || url.includes("?") || url.includes("#")) {
    throw new UsageError(`${flagName} must not contain a query or fragment`);
  }
  if (parsed.pathname !== "/" && parsed.pathname !== "") {
    throw new UsageError(`${flagName} must be an origin without a path`);
  }
  const origin = endpointOrigin(url);
  if (origin === INVALID_ENDPOINT) throw notAnHttpUrl(flagName);
  return origin;
}

/** Validates an OpenAI-compatible base URL given as `flagName` (e.g. `--base-url`): an origin as validateServiceUrl, plus a path. */
export function validateBaseUrl(raw: unknown, flagName: string): string {
  if (typeof raw !== "string") throw notAnHttpUrl(flagName);
  const url = parseUrl(raw);
  if (url === null) throw notAnHttpUrl(flagName);
  if (url.username || url.password) throw new UsageError(`${flagName} must not contain credentials`);
  if (url.search || url.hash || raw.includes("?") || raw.includes("#")) throw new UsageError(`${flagName} must not contain a query or fragment`);
  validateServiceUrl(`${url.protocol}//${url.host}`, flagName);
  return raw;
}

export interface ServiceRequestTarget {
  /** Absolute URL without userinfo. */
  readonly url: string;
  /** `Basic …` when the configured URL carried userinfo (fetch refuses URLs with credentials). */
  readonly authorization: string | null;
}

/** A base URL (trailing "/" stripped) joined with an API path (`/api/chat`), its userinfo moved to a Basic Authorization header; null for a non-http(s) base. */
export function serviceRequestTarget(base: string, apiPath: string): ServiceRequestTarget | null {
  const parsed = parseHttpUrl(base);
  if (!parsed) return null;
  let authorization: string | null = null;
  if (parsed.username !== "" || parsed.password !== "") {
    const user = safeDecode(parsed.username);
    const password = safeDecode(parsed.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;
    parsed.username = "";
    parsed.password = "";
  }
  parsed.hash = "";
  parsed.pathname = parsed.pathname.replace(/\/+$/, "") + apiPath;
  return { url: parsed.toString(), authorization };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
