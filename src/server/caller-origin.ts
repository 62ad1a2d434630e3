// Who may talk to the service: the defence against DNS rebinding and cross-site requests. A
// foreign page can make a browser send requests to 127.0.0.1, but it cannot choose the `Host`
// (its own name) or `Origin` (its own origin) the browser sends. So a request is refused, before
// routing and before any body byte is read, unless it carries exactly one `Host` that is a
// loopback name with the connection's port (`127.0.0.1:P`, `localhost:P`, `[::1]:P`; no port only
// for 80), and no `Origin` or one that is the service's own or allow-listed (`null` is refused).
// Allowed origins get CORS headers so a deliberately allowed local page can read answers.
// A request target in absolute form (`GET http://127.0.0.1:P/health`, as a client configured
// with a proxy sends it) is the service's own path when its authority is one of those Host
// values, and is refused otherwise: the service answers only for itself and never forwards.
import { errorReply, type Reply } from "./json-reply.js";

/** The refusals: no verdict, no health report, nothing from the request echoed. */
const CALLER_REPLIES = {
  hostNotAllowed: errorReply(421, "host not allowed: use 127.0.0.1, localhost or [::1] with the service port", { close: true }),
  originNotAllowed: errorReply(403, "origin not allowed: start the service with --allow-origin to admit one", { close: true }),
  targetNotAllowed: errorReply(400, "request target names another server: this service is not a proxy", { close: true }),
} as const;

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;

/** What the caller check needs from a request head. */
export interface CallerHead {
  /** The request target exactly as sent (origin-form `/health`, or absolute-form `http://127.0.0.1:P/health`). */
  readonly target: string;
  /** Every `Host` header value, in order (a request must carry exactly one). */
  readonly hosts: readonly string[];
  /** Every `Origin` header value, in order (none is fine; more than one is refused). */
  readonly origins: readonly string[];
}

export type CallerDecision =
  | {
      readonly admitted: true;
      /** The allow-listed origin to name in CORS headers, if any. */
      readonly corsOrigin: string | null;
      /** The target in origin-form (`/health`), the one the routes are matched against. */
      readonly target: string;
    }
  | { readonly admitted: false; readonly reply: Reply };

function hostsFor(port: number): Set<string> {
  const hosts = new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
  if (port === 80) LOOPBACK_NAMES.forEach((name) => hosts.add(name));
  return hosts;
}

function ownOrigins(port: number): Set<string> {
  const suffix = port === 80 ? "" : `:${port}`;
  return new Set(LOOPBACK_NAMES.map((name) => `http://${name}${suffix}`));
}

/** A scheme then `:` (RFC 3986 §3.1): how an absolute-form target begins; an origin-form one begins with "/". */
const SCHEME_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:/u;
/** `http://` (case-insensitive), the authority, then the rest: the only absolute form a plain-http service can be named by. */
const HTTP_ABSOLUTE = /^http:\/\/([^/?#]*)(.*)$/isu;

/**
 * The origin-form of `target` (RFC 9112 §3.2.2): an origin-form target as it is; an absolute-form
 * `http://AUTHORITY/path?query` whose AUTHORITY is an allowed Host for `port` (the same names and
 * spellings, case-insensitive) as its `/path?query` ("/" when empty); null for any other
 * absolute-form target (another host or port, https, user info, another scheme). A target that is
 * neither form is returned as it is, for the routing to answer 404.
 */
export function originFormTarget(target: string, port: number): string | null {
  if (target.startsWith("/") || !SCHEME_PREFIX.test(target)) return target;
  const parts = HTTP_ABSOLUTE.exec(target);
  if (parts === null || !hostsFor(port).has((parts[1] ?? "").toLowerCase())) return null;
  const rest = parts[2] ?? "";
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/**
 * Decides whether a request may be answered. `port` is the local port of the connection;
 * `allowedOrigins` holds normalised origins (normalizeAllowedOrigin).
 */
export function admitCaller(head: CallerHead, port: number, allowedOrigins: ReadonlySet<string>): CallerDecision {
  const caller = admitHostAndOrigin(head, port, allowedOrigins);
  if (!caller.admitted) return caller;
  // After the Host and Origin rules, so each of their refusals stays what it was: an absolute-form
  // target naming anything but this service would be a request to forward, and nothing is forwarded.
  const target = originFormTarget(head.target, port);
  if (target === null) return { admitted: false, reply: CALLER_REPLIES.targetNotAllowed };
  return { admitted: true, corsOrigin: caller.corsOrigin, target };
}

function admitHostAndOrigin(
  head: CallerHead,
  port: number,
  allowedOrigins: ReadonlySet<string>,
): { readonly admitted: true; readonly corsOrigin: string | null } | { readonly admitted: false; readonly reply: Reply } {
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
