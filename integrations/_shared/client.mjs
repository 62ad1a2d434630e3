// The adapters' only network code: POST /check and GET /health on the validated loopback
// service, with node:http (no proxies, no redirects, no dependencies).
//
// Contract: every exchange ends by its deadline; at most 65 536 response bytes are held; a body
// over 65 536 request bytes is refused locally (the service would answer 413 anyway); the answer
// is a JSON object or a failure. Failures are values whose `reason` is a fixed token kept from
// the original hooks so existing log filters still match: `URLError` (connection refused, reset,
// closed early), `HTTPError` (any non-2xx status, 3xx included: redirects are not followed),
// `TimeoutError`, `ValueError` (oversize, not UTF-8, not a JSON object) and `JSONDecodeError`.
// Neither the prompt nor the response text ever appears in a reason.
import { request } from "node:http";

export const MAX_RESPONSE_BYTES = 65536;
export const MAX_REQUEST_BYTES = 65536;
export const REQUEST_TOO_LARGE = `prompt exceeded the service's ${MAX_REQUEST_BYTES}-byte request limit`;

/**
 * @typedef {{ ok: true, value: Record<string, unknown> } | { ok: false, reason: string }} Exchange
 */

/**
 * @param {import("./endpoint.mjs").ServiceEndpoint} endpoint
 * @param {"GET" | "POST"} method
 * @param {string} path
 * @param {Buffer | null} body
 * @param {number} deadline absolute time (Date.now() based) by which the exchange ends
 * @param {AbortSignal | undefined} signal ends the exchange early (reason `AbortError`)
 * @returns {Promise<Exchange>}
 */
function exchange(endpoint, method, path, body, deadline, signal) {
  return new Promise((resolve) => {
    let settled = false;
    let timer;
    let req;
    const onAbort = () => finish({ ok: false, reason: "AbortError" });
    const finish = (result) => {
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
    const headers = { host: endpoint.hostHeader, accept: "application/json", connection: "close" };
    if (body !== null) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(body.length);
    }
    req = request({ host: endpoint.connectHost, port: endpoint.port, method, path, headers, agent: false });
    req.on("error", () => finish({ ok: false, reason: "URLError" }));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        return finish({ ok: false, reason: "HTTPError" });
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) return finish({ ok: false, reason: "ValueError" });
      const chunks = [];
      let size = 0;
      res.on("data", (chunk) => {
        if (settled) return;
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) return finish({ ok: false, reason: "ValueError" });
        chunks.push(chunk);
      });
      res.on("error", () => finish({ ok: false, reason: "URLError" }));
      res.on("aborted", () => finish({ ok: false, reason: "URLError" }));
      res.on("end", () => finish(parseObject(Buffer.concat(chunks))));
    });
    req.end(body ?? undefined);
  });
}

/** @returns {Exchange} */
function parseObject(bytes) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: "ValueError" };
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "JSONDecodeError" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "ValueError" };
  return { ok: true, value };
}

/**
 * Screens `text`: the parsed `/check` answer (an object; the classifier judges its fields).
 * @param {import("./endpoint.mjs").ServiceEndpoint} endpoint
 * @param {string} text
 * @param {{ deadline: number, signal?: AbortSignal }} options
 * @returns {Promise<Exchange>}
 */
export async function postCheck(endpoint, text, options) {
  const body = Buffer.from(JSON.stringify({ text }), "utf8");
  if (body.length > MAX_REQUEST_BYTES) return { ok: false, reason: REQUEST_TOO_LARGE };
  return exchange(endpoint, "POST", endpoint.checkPath, body, options.deadline, options.signal);
}

/**
 * The service's `/health` object (mode, canary_timeout, readiness), or a failure.
 * @param {import("./endpoint.mjs").ServiceEndpoint} endpoint
 * @param {{ deadline: number, signal?: AbortSignal }} options
 * @returns {Promise<Exchange>}
 */
export async function getHealth(endpoint, options) {
  return exchange(endpoint, "GET", endpoint.healthPath, null, options.deadline, options.signal);
}
