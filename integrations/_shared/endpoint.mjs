// Where an adapter may send a prompt: the loopback screening service and nowhere else.
// Validated before any request; the raw value is never echoed (it may carry a token).
//
// Accepted hosts: 127.0.0.1, localhost and [::1]. `localhost` is connected to 127.0.0.1 without
// asking the resolver: a hosts file that maps localhost elsewhere must not receive prompts (and
// `little-canary serve` binds 127.0.0.1 only). Redirects are never followed (client.mjs) and
// proxies are never used (node:http ignores proxy variables), so the validated address is the
// only one that ever sees the text.

export const DEFAULT_CHECK_ENDPOINT = "http://127.0.0.1:18421/check";
export const DEFAULT_SERVICE_ORIGIN = "http://127.0.0.1:18421";
export const ENDPOINT_RULE = "endpoint must be an HTTP loopback /check URL without credentials or query data";
export const SERVICE_URL_RULE = "service URL must be an HTTP loopback origin without credentials, path or query data";

const MAX_URL_CHARS = 2048;
const CONNECT_HOSTS = new Map([
  ["127.0.0.1", "127.0.0.1"],
  ["localhost", "127.0.0.1"],
  ["[::1]", "::1"],
]);

/**
 * @typedef {{ connectHost: string, port: number, hostHeader: string, checkPath: "/check", healthPath: "/health", origin: string }} ServiceEndpoint
 */

function parseLoopback(raw, expectedPath) {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_URL_CHARS) return null;
  // Query, fragment, userinfo and whitespace are refused on the raw text: URL parsing would drop
  // an empty "?" or "#" silently, and a refused shape must stay refused however it is spelled.
  if (/[?#@\s\\]/u.test(raw) || /[\u0000-\u001f\u007f]/u.test(raw)) return null;
  let url;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
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

/**
 * LITTLE_CANARY_ENDPOINT for the prompt adapters: `http://<loopback>[:port]/check`. Unset or
 * empty means the default endpoint.
 * @param {unknown} raw
 * @returns {{ ok: true, endpoint: ServiceEndpoint } | { ok: false, error: string }}
 */
export function parseCheckEndpoint(raw) {
  const value = raw === undefined || raw === null || raw === "" ? DEFAULT_CHECK_ENDPOINT : raw;
  const endpoint = parseLoopback(value, "/check");
  return endpoint ? { ok: true, endpoint } : { ok: false, error: ENDPOINT_RULE };
}

/**
 * OpenClaw's `serviceUrl`: an origin (`http://<loopback>[:port]`, path "/" or none); the check
 * URL is `<origin>/check`. Unset means the default origin.
 * @param {unknown} raw
 * @returns {{ ok: true, endpoint: ServiceEndpoint } | { ok: false, error: string }}
 */
export function parseServiceOrigin(raw) {
  const value = raw === undefined || raw === null || raw === "" ? DEFAULT_SERVICE_ORIGIN : raw;
  const endpoint = parseLoopback(value, "/");
  return endpoint ? { ok: true, endpoint } : { ok: false, error: SERVICE_URL_RULE };
}
