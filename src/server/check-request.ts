// The request ladder of the service (docs/serve.md) as pure functions: routing, then the `/check`
// header rules, then the body rules; the first failing rule wins. Free of sockets, so the same
// ladder also answers requests the HTTP parser itself refused (raw-head.ts).
import { isPlainObject } from "../core/guards.js";
import { isBlankText } from "../core/codepoints.js";
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

/** The route, or the 404/405 reply. Unknown paths are 404 whatever the method. */
export function routeRequest(head: Pick<RequestHead, "method" | "target">): Route | Reply {
  const entry = Object.hasOwn(ROUTES, head.target) ? ROUTES[head.target] : undefined;
  if (!entry) return REPLIES.notFound;
  if (head.method !== entry.method) return errorReply(405, "method not allowed", { headers: { allow: entry.method }, close: true });
  return entry.route;
}

/** Media type without parameters, lowercased; a missing header counts as text/plain. */
function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "text/plain";
  return (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
}

/** The body limit of a POST route and the 413 reply that states it. */
export interface BodyLimit {
  readonly maxBytes: number;
  readonly tooLarge: Reply;
}

/** The body limit of `maxBytes`, its 413 reply naming the limit. */
export function bodyLimit(maxBytes: number): BodyLimit {
  return { maxBytes, tooLarge: { status: 413, body: { error: "request body too large", max_request_bytes: maxBytes }, close: true } };
}

/** `/check`'s body limit (MAX_REQUEST_BYTES). */
export const CHECK_BODY_LIMIT = bodyLimit(MAX_REQUEST_BYTES);

/** Rules 1–5: the declared body length, or the reply that refuses the request (each POST route has its own limit). */
export function checkHeaders(head: RequestHead, limit: BodyLimit): { readonly length: number } | Reply {
  if (mediaType(head.contentType) !== "application/json") return REPLIES.unsupportedMediaType;
  // A chunked body has no Content-Length; it is refused rather than read without a known size.
  if (head.contentLength === undefined || head.transferEncoding !== undefined) return REPLIES.lengthRequired;
  const raw = head.contentLength.trim();
  if (!/^[+-]?\d{1,20}$/.test(raw)) return REPLIES.invalidLength;
  const length = Number(raw);
  if (length <= 0) return REPLIES.emptyBody;
  if (length > limit.maxBytes) return limit.tooLarge;
  return { length };
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Rules 6–10 (plus a refusal of lone surrogates): the text to screen, or the reply. */
export function parseCheckBody(bytes: Uint8Array): { readonly text: string } | Reply {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return REPLIES.malformedJson;
  }
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
