// The adapters' only network code: POST /check and GET /health on the validated loopback service
// with node:http (no proxies, no redirects, no dependencies). Every exchange ends by its deadline,
// holds at most 65 536 response bytes and refuses a body over 65 536 bytes locally. Failures are
// fixed tokens kept from the original hooks so log filters still match: `URLError` (refused,
// reset, closed early), `HTTPError` (any non-2xx, redirects included), `TimeoutError`,
// `ValueError` (oversize, not UTF-8, not an object) and `JSONDecodeError`; never prompt or reply text.
// A 401 is its own failure (UNAUTHORIZED): the service wants a bearer token that was not sent, or
// refused the one sent; the token goes in the `Authorization` header of `/check` only, never in a
// URL, a reason or a log line.
import { request, type ClientRequest, type OutgoingHttpHeaders } from "node:http";
import { TOKEN_FILE_ENV, type ServiceEndpoint } from "./config.js";
import { isPlainObject } from "../../core/guards.js";

/** The most response bytes an adapter holds. */
const MAX_RESPONSE_BYTES = 65536;
/** The largest request body an adapter sends (the service's own limit). */
const MAX_REQUEST_BYTES = 65536;
/** The reason given for a prompt too large to send. */
const REQUEST_TOO_LARGE = `prompt exceeded the service's ${MAX_REQUEST_BYTES}-byte request limit`;

/** The failure reasons of a 401 from `/check`: no token was sent, or the one sent was refused. */
export const UNAUTHORIZED = Object.freeze({
  missing: `HTTPError 401 (the service requires a bearer token: set ${TOKEN_FILE_ENV})`,
  refused: `HTTPError 401 (the service refused the bearer token in ${TOKEN_FILE_ENV})`,
});

/** One exchange with the service: the parsed JSON object, or a fixed failure token. */
export type Exchange = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly reason: string };

/** When an exchange must end: an absolute Date.now() deadline and an optional abort signal. */
export interface ExchangeOptions {
  readonly deadline: number;
  readonly signal?: AbortSignal;
}

/** One request: what to ask, the body (POST) and the token (`/check` only). */
interface Ask {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body: Buffer | null;
  readonly token: string | null;
}

function exchange(endpoint: ServiceEndpoint, { method, path, body, token }: Ask, { deadline, signal }: ExchangeOptions): Promise<Exchange> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let req: ClientRequest | undefined;
    const onAbort = (): void => finish({ ok: false, reason: "AbortError" });
    const finish = (result: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      req?.destroy();
      resolve(result);
    };
    if (signal?.aborted) return finish({ ok: false, reason: "AbortError" });
    signal?.addEventListener("abort", onAbort, { once: true });
    const remaining = deadline - Date.now();
    if (remaining <= 0) return finish({ ok: false, reason: "TimeoutError" });
    timer = setTimeout(() => finish({ ok: false, reason: "TimeoutError" }), remaining);
    const headers: OutgoingHttpHeaders = { host: endpoint.hostHeader, accept: "application/json", connection: "close" };
    if (body !== null) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(body.length);
    }
    if (token !== null) headers["authorization"] = `Bearer ${token}`;
    req = request({ host: endpoint.connectHost, port: endpoint.port, method, path, headers, agent: false });
    req.on("error", () => finish({ ok: false, reason: "URLError" }));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        if (status === 401) return finish({ ok: false, reason: token === null ? UNAUTHORIZED.missing : UNAUTHORIZED.refused });
        return finish({ ok: false, reason: "HTTPError" });
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) return finish({ ok: false, reason: "ValueError" });
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) return finish({ ok: false, reason: "ValueError" });
        chunks.push(chunk);
      });
      res.on("error", () => finish({ ok: false, reason: "URLError" }));
      res.on("aborted", () => finish({ ok: false, reason: "URLError" }));
      res.on("end", () => finish(parseJsonObject(Buffer.concat(chunks), ANSWER_REASONS)));
    });
    req.end(body ?? undefined);
  });
}

/** The failure reasons for each step of reading one JSON object (never the parser's message: it quotes the input). */
export type JsonObjectReasons = Readonly<Record<"utf8" | "json" | "object", string>>;

/** `bytes` as one JSON object (strict UTF-8, then JSON), or the reason for the step that refused them. */
export function parseJsonObject(bytes: Uint8Array, reasons: JsonObjectReasons): Exchange {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: reasons.utf8 };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: reasons.json };
  }
  return isPlainObject(value) ? { ok: true, value } : { ok: false, reason: reasons.object };
}

const ANSWER_REASONS: JsonObjectReasons = { utf8: "ValueError", json: "JSONDecodeError", object: "ValueError" };

/** Screens `text`, sending `token` as the bearer token (null: none): the parsed `/check` answer (an object; the classifier judges its fields). */
export async function postCheck(endpoint: ServiceEndpoint, text: string, token: string | null, options: ExchangeOptions): Promise<Exchange> {
  const body = Buffer.from(JSON.stringify({ text }), "utf8");
  if (body.length > MAX_REQUEST_BYTES) return { ok: false, reason: REQUEST_TOO_LARGE };
  return exchange(endpoint, { method: "POST", path: endpoint.checkPath, body, token }, options);
}

/** The service's `/health` object (mode, canary_timeout, readiness), or a failure; asked without a token (the route needs none). */
export async function getHealth(endpoint: ServiceEndpoint, options: ExchangeOptions): Promise<Exchange> {
  return exchange(endpoint, { method: "GET", path: endpoint.healthPath, body: null, token: null }, options);
}
