// Reads the method, target and the few headers the ladder needs from the raw bytes of a request
// that Node's HTTP parser refused (e.g. `Content-Length: abc`), at most MAX_HEAD_BYTES of its head.
// Nothing from it is logged or echoed: it only selects one of the fixed ladder replies.
import type { CallerHead } from "./caller-origin.js";
import type { RequestHead } from "./check-request.js";

/** Node's default limit for the whole header block. */
const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADER_LINES = 200;

/** What the ladder reads from a refused request's raw head: its request head, caller headers and `Authorization` values. */
export type RawHead = RequestHead & CallerHead & { readonly authorization: readonly string[] };

export function parseRawHead(packet: Buffer | undefined): RawHead | null {
  if (!packet || packet.byteLength === 0) return null;
  const text = packet.subarray(0, MAX_HEAD_BYTES).toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  const lines = (end >= 0 ? text.slice(0, end) : text).split("\r\n", MAX_HEADER_LINES);
  const requestLine = /^([A-Z]{1,20}) (\S{1,8192}) HTTP\/1\.[01]$/.exec(lines[0] ?? "");
  if (!requestLine) return null;
  const headers = new Map<string, string>();
  const hosts: string[] = [];
  const origins: string[] = [];
  const authorization: string[] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (!headers.has(name)) headers.set(name, value);
    if (name === "host") hosts.push(value);
    else if (name === "origin") origins.push(value);
    else if (name === "authorization") authorization.push(value);
  }
  return {
    method: requestLine[1] ?? "",
    target: requestLine[2] ?? "",
    contentType: headers.get("content-type"),
    contentLength: headers.get("content-length"),
    transferEncoding: headers.get("transfer-encoding"),
    hosts,
    origins,
    authorization,
  };
}
