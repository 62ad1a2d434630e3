// One bounded HTTP exchange with a model backend: one deadline covers the whole call, the body read is capped, and
// every failure is a value (timeout, unavailable, or exception with only the error's class name; never the body).
// Node's own `fetch`, passed or defaulted, means the built-in transport (builtin-transport.ts); any other is a fetch.
import { isIP } from "node:net";
import { errorClassName } from "../core/errors.js";
import { builtinExchange, builtinTarget, type BuiltinExchange } from "./builtin-transport.js";

export type FetchLike = typeof fetch;

/** Node's own fetch, as it was when this module loaded (a later replacement is an injected fetch). */
const NODE_FETCH: FetchLike = globalThis.fetch;

export interface HttpCallOptions {
  readonly method: "GET" | "POST";
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised with JSON.stringify when present. */
  readonly json?: unknown;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  /**
   * The caller's own abort (a run interrupted, a client gone): the request is abandoned at once,
   * its socket closed, and the outcome is an exception of class `AbortError`.
   */
  readonly signal?: AbortSignal;
}

export type HttpCallOutcome =
  | { readonly kind: "response"; readonly status: number; readonly body: string }
  /** Status 200-range or not, the body exceeded the cap or was not UTF-8; it was discarded. */
  | { readonly kind: "unreadable_body"; readonly status: number; readonly reason: "too_large" | "not_utf8" }
  | { readonly kind: "timeout" }
  /** Nothing answered; `cause` names why when the error said so (networkFailureCause). */
  | { readonly kind: "unavailable"; readonly cause?: NetworkFailureCause }
  | { readonly kind: "exception"; readonly errorClass: string };

/** Why a request got no answer, in words a user can act on (see networkFailureCause). */
export type NetworkFailureCause =
  | "DNS failure"
  | "connection refused"
  | "connection reset"
  | "host unreachable"
  | "TLS failure"
  | "timeout"
  | "a port fetch never connects to";

/** TLS and certificate error codes (Node's own and OpenSSL's, as undici passes them on). */
const TLS_CODES = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "EPROTO",
]);

const CAUSE_BY_CODE: Readonly<Record<string, NetworkFailureCause>> = {
  ENOTFOUND: "DNS failure",
  EAI_AGAIN: "DNS failure",
  EAI_NONAME: "DNS failure",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ECONNABORTED: "connection reset",
  EPIPE: "connection reset",
  UND_ERR_SOCKET: "connection reset",
  UND_ERR_CLOSED: "connection reset",
  EHOSTUNREACH: "host unreachable",
  EHOSTDOWN: "host unreachable",
  ENETUNREACH: "host unreachable",
  ENETDOWN: "host unreachable",
  EADDRNOTAVAIL: "host unreachable",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
};

/** The error and its causes, at most five deep: undici wraps the socket error as TypeError("fetch failed"). */
export function* causeChain(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The cause a known error `code` names, or undefined (own keys only: "constructor" names nothing). */
function causeOfCode(code: unknown): NetworkFailureCause | undefined {
  return typeof code === "string" && Object.hasOwn(CAUSE_BY_CODE, code) ? CAUSE_BY_CODE[code] : undefined;
}

/** The cause of a failed request from an error `code` on its cause chain (an abort is "timeout"), or null; never its message. */
export function networkFailureCause(error: unknown): NetworkFailureCause | null {
  for (const current of causeChain(error)) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (name === "TimeoutError" || name === "AbortError") return "timeout";
    const known = causeOfCode(code);
    if (known !== undefined) return known;
    if (typeof code === "string" && (TLS_CODES.has(code) || code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || code.startsWith("CERT_"))) {
      return "TLS failure";
    }
    if (isBadPort(current)) return "a port fetch never connects to";
  }
  return null;
}

/** The socket errors on `error`'s cause chain, with those an AggregateError holds (a host with several addresses), a few at most. */
function* socketErrors(error: unknown): Generator<Record<string, unknown>> {
  for (const current of causeChain(error)) {
    yield current as Record<string, unknown>;
    const inner = (current as { errors?: unknown }).errors;
    if (Array.isArray(inner)) for (const item of inner.slice(0, 4)) if (typeof item === "object" && item !== null) yield item as Record<string, unknown>;
  }
}

/** `127.0.0.1:8080` or `[::1]:8080`: the address and port a refused connect names (an IP and a number, never free text), or null. */
export function refusedAddress(error: unknown): string | null {
  for (const { code, address, port } of socketErrors(error)) {
    if (code !== "ECONNREFUSED" || typeof address !== "string" || !Number.isInteger(port)) continue;
    const family = isIP(address);
    if (family !== 0) return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  }
  return null;
}

/** The host name a failed DNS lookup names (at most 253 characters, as DNS allows), or null. */
export function unresolvedHost(error: unknown): string | null {
  for (const { code, hostname } of socketErrors(error)) {
    if (typeof code === "string" && typeof hostname === "string" && hostname !== "" && hostname.length <= 253) return hostname;
  }
  return null;
}

/**
 * fetch refuses "bad ports" (e.g. 1, 9, 25) without connecting: an endpoint that cannot be
 * reached, for a reason the user cannot see from outside (the port answers to curl).
 */
function isBadPort(error: object): boolean {
  return error instanceof Error && error.message === "bad port";
}

class DeadlineExceeded extends Error {}

function classify(error: unknown): HttpCallOutcome {
  for (const current of causeChain(error)) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    // A code that names a cause: a timeout, or a backend that could not be reached or hung up.
    const known = causeOfCode(code);
    if (name === "TimeoutError" || known === "timeout") return { kind: "timeout" };
    if (known !== undefined) return { kind: "unavailable", cause: networkFailureCause(current) ?? known };
    if (isBadPort(current)) return { kind: "unavailable", cause: "a port fetch never connects to" };
  }
  // A TLS handshake that failed (an https:// URL at a plain-HTTP port, a certificate not trusted):
  // the server cannot be reached that way, which the user fixes in the URL or the trust store, not
  // by running again as for a reply that could not be used.
  if (networkFailureCause(error) === "TLS failure") return { kind: "unavailable", cause: "TLS failure" };
  return { kind: "exception", errorClass: errorClassName(error) };
}

async function readCapped(response: Response, maxBytes: number): Promise<{ ok: true; text: string } | { ok: false; reason: "too_large" | "not_utf8" }> {
  if (response.body === null) return { ok: true, text: "" };
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    return { ok: false, reason: "too_large" };
  }
  if (Number.isSafeInteger(declared) && declared >= 0) {
    // A declared length within the cap is enforced by the HTTP layer, so the body is read in one call, far cheaper than by chunks.
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > maxBytes) return { ok: false, reason: "too_large" };
    return decodeUtf8(bytes);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { ok: false, reason: "too_large" };
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks, size));
}

// One decoder for every call: without `stream` each decode() starts fresh and a fatal error leaves no state, so sharing is safe.
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; reason: "not_utf8" } {
  try {
    return { ok: true, text: STRICT_UTF8.decode(bytes) };
  } catch {
    return { ok: false, reason: "not_utf8" };
  }
}

/** Performs one request; on the fetch path the deadline both aborts (releasing the socket) and races a fetch that ignores the signal. */
export async function httpCall(fetchFn: FetchLike, url: string, options: HttpCallOptions): Promise<HttpCallOutcome> {
  // Aborted already: nothing is built or sent.
  if (options.signal?.aborted === true) return ABORTED;
  const headers: Record<string, string> = { accept: "application/json", ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  }
  const target = fetchFn === NODE_FETCH ? builtinTarget(url) : null;
  if (target !== null) {
    return outcomeOf(await builtinExchange(target, options.method, headers, body, options.timeoutMs, options.maxBodyBytes, options.signal));
  }
  return fetchCall(fetchFn, url, options, headers, body);
}

/** The outcome of a call the caller aborted (HttpCallOptions.signal), whichever transport ran. */
const ABORTED: HttpCallOutcome = Object.freeze({ kind: "exception", errorClass: "AbortError" });

/** The same outcome the fetch path gives for the same reply or failure. */
function outcomeOf(exchange: BuiltinExchange): HttpCallOutcome {
  switch (exchange.kind) {
    case "body": {
      const read = decodeUtf8(exchange.bytes);
      return read.ok
        ? { kind: "response", status: exchange.status, body: read.text }
        : { kind: "unreadable_body", status: exchange.status, reason: read.reason };
    }
    case "too_large":
      return { kind: "unreadable_body", status: exchange.status, reason: "too_large" };
    case "timeout":
      return { kind: "timeout" };
    case "aborted":
      return ABORTED;
    case "redirect":
      // fetch with `redirect: "error"` rejects with a TypeError for any redirect status.
      return { kind: "exception", errorClass: "TypeError" };
    case "error": {
      // fetch wraps every transport failure in a TypeError; one neither transport can name gets that class, whichever transport ran.
      const outcome = classify(exchange.error);
      return outcome.kind === "exception" ? { kind: "exception", errorClass: "TypeError" } : outcome;
    }
  }
}

async function fetchCall(
  fetchFn: FetchLike,
  url: string,
  options: HttpCallOptions,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<HttpCallOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DeadlineExceeded("deadline"));
      reject(new DeadlineExceeded("deadline"));
    }, options.timeoutMs);
  });
  // The race may settle on the deadline first; keep the losing promise from being unhandled.
  deadline.catch(() => undefined);
  // The caller's abort ends the call as the deadline does: the fetch is aborted (its socket
  // released) and raced, for a fetch that ignores the signal.
  const caller = options.signal;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<HttpCallOutcome>((resolve) => {
    if (caller === undefined) return;
    onAbort = () => {
      controller.abort(caller.reason);
      resolve(ABORTED);
    };
    caller.addEventListener("abort", onAbort, { once: true });
  });

  const init: RequestInit = { method: options.method, headers, signal: controller.signal, redirect: "error" };
  if (body !== undefined) init.body = body;

  const exchange = async (): Promise<HttpCallOutcome> => {
    const response = await fetchFn(url, init);
    const read = await readCapped(response, options.maxBodyBytes);
    if (!read.ok) return { kind: "unreadable_body", status: response.status, reason: read.reason };
    return { kind: "response", status: response.status, body: read.text };
  };

  try {
    return await Promise.race([exchange(), deadline, abandoned]);
  } catch (error) {
    if (caller?.aborted === true) return ABORTED;
    if (timedOut || error instanceof DeadlineExceeded) return { kind: "timeout" };
    return classify(error);
  } finally {
    // No abort after a finished exchange: the body was read or cancelled, so the connection is back in the pool already.
    clearTimeout(timer);
    if (onAbort !== undefined) caller?.removeEventListener("abort", onAbort);
  }
}

/** Python-float style seconds for messages: 10 → "10.0", 0.5 → "0.5", 1e-7 → "1e-07". */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  const [mantissa = "0", exponentText = "0"] = seconds.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 16) {
    const text = String(seconds);
    return /[.e]/.test(text) ? text : `${text}.0`;
  }
  const sign = exponent < 0 ? "-" : "+";
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
}
