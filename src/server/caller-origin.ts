// Who may talk to the service: the defence against DNS rebinding and cross-site requests. A
// foreign page can make a browser send requests to 127.0.0.1, but it cannot choose the `Host`
// (its own name) or `Origin` (its own origin) the browser sends. So a request is refused, before
// routing and before any body byte is read, unless it carries exactly one `Host` that is a
// loopback name with the connection's port (`127.0.0.1:P`, `localhost:P`, `[::1]:P`; no port only
// for 80), and no `Origin` or one that is the service's own or allow-listed (`null` is refused).
// Allowed origins get CORS headers so a deliberately allowed local page can read answers.
import { errorReply, type Reply } from "./json-reply.js";
import { parseUrl } from "../core/guards.js";

/** The refusals: no verdict, no health report, nothing from the request echoed. */
const CALLER_REPLIES = {
  hostNotAllowed: errorReply(421, "host not allowed: use 127.0.0.1, localhost or [::1] with the service port", { close: true }),
  originNotAllowed: errorReply(403, "origin not allowed: start the service with --allow-origin to admit one", { close: true }),
} as const;

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;

/** What the caller check needs from a request head. */
export interface CallerHead {
  /** Every `Host` header value, in order (a request must carry exactly one). */
  readonly hosts: readonly string[];
  /** Every `Origin` header value, in order (none is fine; more than one is refused). */
  readonly origins: readonly string[];
}

export type CallerDecision =
  | { readonly admitted: true /** The allow-listed origin to name in CORS headers, if any. */; readonly corsOrigin: string | null }
  | { readonly admitted: false; readonly reply: Reply };

/**
 * Normalises one allow-list entry to its origin (`scheme://host[:port]`, lowercase, default port
 * dropped), or returns null when it is not an http(s) origin without user info, path, query or
 * fragment.
 */
export function normalizeAllowedOrigin(raw: string): string | null {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2048 || /[\s\\]/u.test(raw)) return null;
  const url = parseUrl(raw);
  if (url === null) return null;
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username !== "" || url.password !== "") return null;
  if (url.search !== "" || url.hash !== "" || raw.includes("?") || raw.includes("#")) return null;
  if (url.pathname !== "/" || /^[a-z]+:\/\/[^/]+\/./iu.test(raw)) return null;
  return url.origin;
}

function hostsFor(port: number): Set<string> {
  const hosts = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  if (port === 80) LOOPBACK_NAMES.forEach((name) => hosts.add(name));
  return hosts;
}

function ownOrigins(port: number): Set<string> {
  const suffix = port === 80 ? "" : `:${port}`;
  return new Set(LOOPBACK_NAMES.map((name) => `http://${name}${suffix}`));
}

/**
 * Decides whether a request may be answered. `port` is the local port of the connection;
 * `allowedOrigins` holds normalised origins (normalizeAllowedOrigin).
 */
export function admitCaller(head: CallerHead, port: number, allowedOrigins: ReadonlySet<string>): CallerDecision {
  if (head.hosts.length !== 1) return { admitted: false, reply: CALLER_REPLIES.hostNotAllowed };
  // Host names are case-insensitive; nothing else about the value is forgiven.
  if (!hostsFor(port).has(head.hosts[0]!.trim().toLowerCase())) return { admitted: false, reply: CALLER_REPLIES.hostNotAllowed };
  if (head.origins.length === 0) return { admitted: true, corsOrigin: null };
  if (head.origins.length > 1) return { admitted: false, reply: CALLER_REPLIES.originNotAllowed };
  // Browsers send the serialised origin; any other spelling is refused rather than interpreted.
  const origin = head.origins[0]!;
  if (ownOrigins(port).has(origin)) return { admitted: true, corsOrigin: null };
  if (allowedOrigins.has(origin)) return { admitted: true, corsOrigin: origin };
  return { admitted: false, reply: CALLER_REPLIES.originNotAllowed };
}

/** Response headers for an allow-listed origin (every answer varies by Origin either way). */
export function corsHeaders(corsOrigin: string | null): Record<string, string> {
  return corsOrigin === null ? { vary: "Origin" } : { "access-control-allow-origin": corsOrigin, vary: "Origin" };
}

/**
 * Headers of the 204 answer to a CORS preflight from an allow-listed origin for a known route: the
 * method and headers it accepts. Chromium's private-network preflight is answered only for such an origin.
 */
export function preflightHeaders(corsOrigin: string, method: string, privateNetwork: boolean, authorization = false): Record<string, string> {
  return {
    ...corsHeaders(corsOrigin),
    "access-control-allow-methods": method,
    // `authorization` only when the service requires a token: a page can then send it.
    "access-control-allow-headers": authorization ? "content-type, authorization" : "content-type",
    "access-control-max-age": "600",
    ...(privateNetwork ? { "access-control-allow-private-network": "true" } : {}),
  };
}
