// httpCall's default transport (http-call.ts): Node's HTTP client over keep-alive agents, because on a loopback canary
// fetch's streams cost several times the rest of a check. Same outcomes as the fetch path: one deadline destroys request
// and socket; the body is capped (also after decompression) and one cut short is an error; a redirect fails as with
// `redirect: "error"`. Only plain http(s) URLs without credentials, on ports fetch allows, are taken (`builtinTarget`).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { parseUrl } from "../core/guards.js";

/** What the caller classifies: a whole body (as bytes), a refusal of it, or an error. */
export type BuiltinExchange =
  | { readonly kind: "body"; readonly status: number; readonly bytes: Uint8Array }
  | { readonly kind: "too_large"; readonly status: number }
  | { readonly kind: "timeout" }
  /** The caller's signal aborted the exchange; its socket was closed. */
  | { readonly kind: "aborted" }
  | { readonly kind: "redirect" }
  | { readonly kind: "error"; readonly error: unknown };

/** Where a request goes, parsed once from its URL. */
export interface BuiltinTarget {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: number;
  readonly path: string;
}

/** Idle keep-alive sockets close after 4 s (as in fetch's pool), before a Node server drops them at 5 s, so no request goes to a closing socket. */
const IDLE_SOCKET_MS = 4000;
const HTTP_AGENT = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: "lifo" });
const HTTPS_AGENT = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: "lifo" });
/** When each kept-alive socket was last handed back to its agent's pool (ms, `Date.now()`). */
const idleSince = new WeakMap<Socket, number>();
for (const agent of [HTTP_AGENT, HTTPS_AGENT]) agent.on("free", (socket: Socket) => idleSince.set(socket, Date.now()));

/** Ports the fetch standard refuses ("bad ports"); requests to them stay on the fetch path. */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);
/** The statuses fetch treats as redirects. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Parsed targets by URL: a backend sends every request of a run to the same few URLs. */
const targets = new Map<string, BuiltinTarget | null>();
const MAX_CACHED_TARGETS = 64;

/** The target of `url` for this transport, or null when the request must go through fetch. */
export function builtinTarget(url: string): BuiltinTarget | null {
  const cached = targets.get(url);
  if (cached !== undefined) return cached;
  const target = parseTarget(url);
  if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
}

function parseTarget(url: string): BuiltinTarget | null {
  const parsed = parseUrl(url);
  if (parsed === null) return null;
  const secure = parsed.protocol === "https:";
  if (!secure && parsed.protocol !== "http:") return null;
  if (parsed.username !== "" || parsed.password !== "" || parsed.hostname === "") return null;
  const port = parsed.port === "" ? (secure ? 443 : 80) : Number(parsed.port);
  if (FETCH_BAD_PORTS.has(port)) return null;
  // WHATWG keeps IPv6 literals bracketed; the socket layer wants the bare address.
  const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return { secure, hostname, port, path: `${parsed.pathname}${parsed.search}` };
}

/** Sends one request and reads its whole reply within `timeoutMs`, bounded by `maxBodyBytes`. */
export function builtinExchange(
  target: BuiltinTarget,
  method: "GET" | "POST",
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  timeoutMs: number,
  maxBodyBytes: number,
  signal?: AbortSignal,
): Promise<BuiltinExchange> {
  return new Promise<BuiltinExchange>((resolve) => {
    let settled = false;
    const outgoing: OutgoingHttpHeaders = { "user-agent": "node", ...headers };
    if (body !== undefined) outgoing["content-length"] = Buffer.byteLength(body);
    const request = target.secure ? httpsRequest : httpRequest;
    let req: ReturnType<typeof httpRequest>;
    const finish = (outcome: BuiltinExchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(outcome);
    };
    // The deadline and the abort: destroying the request closes its socket wherever it is.
    const timer = setTimeout(() => {
      finish({ kind: "timeout" });
      req?.destroy();
    }, timeoutMs);
    const abort = (): void => {
      finish({ kind: "aborted" });
      req?.destroy();
    };
    signal?.addEventListener("abort", abort, { once: true });
    const send = (staleRetries: number): void => {
      try {
        req = request({
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          method,
          headers: outgoing,
          agent: target.secure ? HTTPS_AGENT : HTTP_AGENT,
        });
      } catch (error) {
        // Invalid header names or values are refused before anything is sent.
        finish({ kind: "error", error });
        return;
      }
      const sent = req;
      let answered = false;
      let idleFor = 0;
      sent.on("socket", (socket: Socket) => {
        const since = idleSince.get(socket);
        idleFor = since === undefined ? 0 : Date.now() - since;
      });
      sent.on("error", (error) => {
        // A kept-alive socket the server closed while idle fails before any reply: the request goes again on another socket within the
        // deadline, but only after a real idle spell, so a server that drops a request on a busy connection is answered by the failure.
        if (
          !settled &&
          !answered &&
          sent.reusedSocket &&
          idleFor >= STALE_AFTER_IDLE_MS &&
          staleRetries > 0 &&
          STALE_SOCKET_CODES.has(`${(error as { code?: unknown } | null)?.code}`)
        ) {
          send(staleRetries - 1);
          return;
        }
        finish({ kind: "error", error });
      });
      sent.on("response", (res) => {
        answered = true;
        if (settled) {
          res.destroy();
          return;
        }
        readResponse(res, maxBodyBytes, finish);
      });
      sent.end(body);
    };
    send(MAX_STALE_SOCKET_RETRIES);
  });
}

/** How many times one request is sent again after landing on kept-alive sockets the server had closed. */
const MAX_STALE_SOCKET_RETRIES = 2;
/** How long a socket must have sat idle for a reset on it to be read as the server's idle close. */
const STALE_AFTER_IDLE_MS = 1000;
const STALE_SOCKET_CODES = new Set(["ECONNRESET", "EPIPE"]);

function readResponse(res: IncomingMessage, maxBodyBytes: number, finish: (outcome: BuiltinExchange) => void): void {
  const status = res.statusCode ?? 0;
  if (REDIRECT_STATUSES.has(status)) {
    res.destroy();
    finish({ kind: "redirect" });
    return;
  }
  const declared = Number(res.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBodyBytes) {
    res.destroy();
    finish({ kind: "too_large", status });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBodyBytes) {
      res.destroy();
      finish({ kind: "too_large", status });
      return;
    }
    chunks.push(chunk);
  });
  // A reply cut short by the peer ends in an error here (ECONNRESET "aborted"), not in "end".
  res.on("error", (error) => finish({ kind: "error", error }));
  res.on("end", () => {
    if (size > maxBodyBytes) return;
    const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
    let decoded: Buffer | null;
    try {
      decoded = decodeContent(raw, res.headers["content-encoding"], maxBodyBytes);
    } catch (error) {
      finish({ kind: "error", error });
      return;
    }
    finish(decoded === null ? { kind: "too_large", status } : { kind: "body", status, bytes: decoded });
  });
}

type Decoder = (bytes: Buffer, options: { maxOutputLength: number }) => Buffer;
const DECODERS: ReadonlyMap<string, Decoder> = new Map<string, Decoder>([
  ["gzip", gunzipSync],
  ["x-gzip", gunzipSync],
  ["deflate", inflateSync],
  ["br", brotliDecompressSync],
]);

/** The body with its content codings undone as fetch does (an unknown coding leaves it as it came), or null past the cap; throws when it does not decode. */
function decodeContent(raw: Buffer, encoding: string | undefined, maxBodyBytes: number): Buffer | null {
  if (encoding === undefined || raw.length === 0) return raw;
  const codings = encoding
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding !== "" && coding !== "identity")
    .reverse();
  if (!codings.every((coding) => DECODERS.has(coding))) return raw;
  let bytes = raw;
  for (const coding of codings) {
    try {
      bytes = (DECODERS.get(coding) as Decoder)(bytes, { maxOutputLength: maxBodyBytes });
    } catch (error) {
      // zlib refuses to produce more than maxOutputLength with a RangeError.
      if (error instanceof RangeError) return null;
      throw error;
    }
  }
  return bytes;
}
