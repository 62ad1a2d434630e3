// The few headers the ladder reads, collected from a raw header list: Node's `rawHeaders` of a
// request it parsed, or the head of one its HTTP parser refused (e.g. `Content-Length: abc`), read
// from at most MAX_HEAD_BYTES of the packet. Nothing from it is logged or echoed: it only selects
// one of the fixed ladder replies.
import type { CallerHead } from "./caller-origin.js";
import type { RequestHead } from "./check-request.js";

/** Node's default limit for the whole header block. */
const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADER_LINES = 200;

/** What the ladder reads from a request head: its request head, caller headers and `Authorization` values. */
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
