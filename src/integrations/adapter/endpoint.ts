// Where an adapter may send a prompt: the loopback screening service (127.0.0.1, localhost or
// [::1]) and nowhere else, validated before any request; the raw value, which may carry a token,
// is never echoed. `localhost` is connected to 127.0.0.1 without the resolver, so a hosts file
// mapping it elsewhere receives nothing; with no redirects (client.ts) and no proxies (node:http
// ignores them), the validated address is the only one that ever sees the text.
import { parseUrl } from "../../core/guards.js";

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
