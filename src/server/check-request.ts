// The request ladder of the service (docs/serve.md) as pure functions: routing, then the header
// rules, then the body rules of `/check` and `/screen`; the first failing rule wins. Free of
// sockets, so the same ladder also answers requests the HTTP parser itself refused (parseRawHead:
// nothing read from such a head is logged or echoed, it only selects one of the fixed replies).
import { isPlainObject } from "../core/guards.js";
import { isBlankText } from "../core/codepoints.js";
import { readStrictDocument } from "../core/strict-document.js";
import { admitScreenInputs, BatchRefusedError, type ScreenInput } from "../screen/admit.js";
import type { CallerHead } from "./caller-origin.js";
import { MAX_REQUEST_BYTES } from "./limits.js";
import { errorReply, REPLIES, type Reply } from "./json-reply.js";

/** A text of whitespace alone: nothing to screen, refused like an empty one (no canary call). */
const TEXT_BLANK = errorReply(400, "text must not be only whitespace");

/** What the ladder needs to know about a request before its body is read. */
export interface RequestHead {
  readonly method: string;
  /** The request target exactly as sent: `/health?x=1` is not `/health`. */
  readonly target: string;
  readonly contentType: string | undefined;
  /** Raw Content-Length header value, if any. */
  readonly contentLength: string | undefined;
  readonly transferEncoding: string | undefined;
}

/** A known route; `ready` answers the health report with 503 when the service is not ready. */
export type Route = "health" | "ready" | "check" | "screen";

const ROUTES: Readonly<Record<string, { route: Route; method: string }>> = {
  "/health": { route: "health", method: "GET" },
  "/ready": { route: "ready", method: "GET" },
  "/check": { route: "check", method: "POST" },
  "/screen": { route: "screen", method: "POST" },
};

/** The method a known path accepts, or undefined for an unknown path. */
export function routeMethod(target: string): string | undefined {
  return Object.hasOwn(ROUTES, target) ? ROUTES[target]?.method : undefined;
}

/**
 * The route, or the 404/405 reply. Unknown paths are 404 whatever the method. A GET route takes
 * HEAD too (a load balancer's probe may use it; the reply is the GET one without its body).
 */
export function routeRequest(head: Pick<RequestHead, "method" | "target">): Route | Reply {
  const entry = Object.hasOwn(ROUTES, head.target) ? ROUTES[head.target] : undefined;
  if (!entry) return REPLIES.notFound;
  const get = entry.method === "GET";
  if (head.method !== entry.method && !(get && head.method === "HEAD")) {
    return errorReply(405, "method not allowed", { headers: { allow: get ? "GET, HEAD" : entry.method }, close: true });
  }
  return entry.route;
}

/** Media type without parameters, lowercased; a missing header counts as text/plain. */
function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "text/plain";
  return (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
}

/** Rules 1–5: the declared body length, or the reply that refuses the request (each POST route has its own limit). */
export function checkHeaders(head: RequestHead, route: "check" | "screen"): { readonly length: number } | Reply {
  if (mediaType(head.contentType) !== "application/json") return REPLIES.unsupportedMediaType;
  // A chunked body has no Content-Length; it is refused rather than read without a known size.
  if (head.contentLength === undefined || head.transferEncoding !== undefined) return REPLIES.lengthRequired;
  const raw = head.contentLength.trim();
  if (!/^[+-]?\d{1,20}$/.test(raw)) return REPLIES.invalidLength;
  const length = Number(raw);
  if (length <= 0) return REPLIES.emptyBody;
  const maxBytes = route === "check" ? MAX_REQUEST_BYTES : MAX_SCREEN_REQUEST_BYTES;
  if (length > maxBytes) return { status: 413, body: { error: "request body too large", max_request_bytes: maxBytes }, close: true };
  return { length };
}

/** Rules 6–10 (plus a refusal of lone surrogates): the text to screen, or the reply. */
export function parseCheckBody(bytes: Uint8Array): { readonly text: string } | Reply {
  const read = strictBody(bytes, CHECK_DETAILED);
  if (isReply(read)) return read;
  const { value } = read;
  if (!isPlainObject(value)) return REPLIES.notAnObject;
  if (!Object.hasOwn(value, "text")) return REPLIES.textRequired;
  const text = value["text"];
  if (typeof text !== "string") return REPLIES.textNotString;
  if (text === "") return REPLIES.textEmpty;
  if (isBlankText(text)) return TEXT_BLANK;
  // Lengths are code points; an escaped lone surrogate has no code point to count.
  if (!text.isWellFormed()) return REPLIES.textNotWellFormed;
  return { text };
}

export function isReply(value: unknown): value is Reply {
  return isPlainObject(value) && typeof value["status"] === "number" && isPlainObject(value["body"]);
}

/**
 * Largest `/screen` request body (1 MiB). The service holds a body in memory until it is
 * screened, once per connection, so this is well below `screen`'s 8 MiB total for a file.
 */
export const MAX_SCREEN_REQUEST_BYTES = 1_048_576;

/** Batch refusals that are about size: 413, as a body over the limit is. */
const SIZE_REASONS: ReadonlySet<string> = new Set(["too_many_items", "total_bytes"]);

/**
 * A request body read by the one strict reader (no byte order mark, strict UTF-8, no duplicate key
 * at any depth) with whether a string holds an escaped lone surrogate, or the reply that refuses
 * it. A duplicate key is refused because a consumer whose parser keeps the first of two `text`
 * keys would read other text than the one screened.
 */
function strictBody(bytes: Uint8Array, detailed: (code: string) => boolean): { readonly value: unknown; readonly loneSurrogate: boolean } | Reply {
  const read = readStrictDocument(bytes);
  if (!read.ok) return detailed(read.code) ? errorReply(400, `malformed JSON: ${read.message}`) : REPLIES.malformedJson;
  return { value: read.value, loneSurrogate: read.loneSurrogate };
}

/** `/check` answers exactly `malformed JSON` for a body that is not JSON (its published ladder), and names a duplicate key. */
const CHECK_DETAILED = (code: string): boolean => code === "duplicate_key";
/** `/screen` names every rule of the strict reader but plain syntax and UTF-8. */
const SCREEN_DETAILED = (code: string): boolean => code !== "malformed_json" && code !== "invalid_utf8";

/**
 * The body rules of `POST /screen`: the bytes, read by the one strict reader (no byte order mark,
 * strict UTF-8, no duplicate key at any depth), as `{"items": [...]}` of what `screen` reads in a
 * line, admitted all-or-nothing by `screen`'s admission (src/screen/admit.ts, its default limits)
 * before a check slot is taken; `screenBatch` admits them again. Replies name the rule, never the text.
 */
export function parseScreenBody(bytes: Uint8Array): { readonly inputs: readonly ScreenInput[] } | Reply {
  const read = strictBody(bytes, SCREEN_DETAILED);
  if (isReply(read)) return read;
  const { value } = read;
  if (!isPlainObject(value)) return REPLIES.notAnObject;
  // Lengths are code points; an escaped lone surrogate has no code point to count (as /check).
  if (read.loneSurrogate) return REPLIES.textNotWellFormed;
  if (!Object.hasOwn(value, "items")) return errorReply(400, "items is required");
  const inputs = value["items"];
  if (!Array.isArray(inputs)) return errorReply(400, "items must be an array");
  if (inputs.length === 0) return errorReply(400, "items must not be empty");
  try {
    admitScreenInputs(inputs);
  } catch (error) {
    if (!(error instanceof BatchRefusedError)) throw error;
    const status = SIZE_REASONS.has(error.reason) ? 413 : 400;
    return { status, body: { error: error.message, reason: error.reason } };
  }
  return { inputs: inputs as ScreenInput[] };
}

/** Node's default limit for the whole header block. */
const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADER_LINES = 200;

/** What the ladder reads from a request head (Node's `rawHeaders`, or the packet of a request its parser refused): its request head, caller headers and `Authorization` values. */
export type RawHead = RequestHead & CallerHead & { readonly authorization: readonly string[] };

/**
 * The head of a request from its raw header list (name, value, name, …; names case-insensitive):
 * the first value of each single-valued header, and every `Host`, `Origin` and `Authorization`.
 */
export function headFromRaw(method: string, target: string, rawHeaders: readonly string[]): RawHead {
  const first = new Map<string, string>();
  const hosts: string[] = [];
  const origins: string[] = [];
  const authorization: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (!first.has(name)) first.set(name, value);
    if (name === "host") hosts.push(value);
    else if (name === "origin") origins.push(value);
    else if (name === "authorization") authorization.push(value);
  }
  return {
    method,
    target,
    contentType: first.get("content-type"),
    contentLength: first.get("content-length"),
    transferEncoding: first.get("transfer-encoding"),
    hosts,
    origins,
    authorization,
  };
}

/** The head of a request the HTTP parser refused, from its raw bytes; null when its request line is not HTTP/1.x. */
export function parseRawHead(packet: Buffer | undefined): RawHead | null {
  if (!packet || packet.byteLength === 0) return null;
  const text = packet.subarray(0, MAX_HEAD_BYTES).toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  const lines = (end >= 0 ? text.slice(0, end) : text).split("\r\n", MAX_HEADER_LINES);
  const requestLine = /^([A-Z]{1,20}) (\S{1,8192}) HTTP\/1\.[01]$/.exec(lines[0] ?? "");
  if (!requestLine) return null;
  const rawHeaders: string[] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) rawHeaders.push(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headFromRaw(requestLine[1] ?? "", requestLine[2] ?? "", rawHeaders);
}
