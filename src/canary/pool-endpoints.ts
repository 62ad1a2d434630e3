// A canary pool as a user configures it: endpoints written `URL` or `URL#N` (N checks in flight at most; errors name
// the flag and rule, never the value, which may hold a secret), and the endpoint log: one JSON line per attempt (pool.ts
// EndpointAttempt plus the time), a side file never hashed, appended (O_APPEND, never through a symlink: core/append.ts)
// one whole line per write, so concurrent runs never tear a line; or the same lines handed whole to a caller's writer
// (`--endpoint-log -`: the command's stderr stream, mapped in verbs/canary-settings.ts).
import { writeSync } from "node:fs";
import { openAppendNoFollowSync } from "../core/append.js";
import { UsageError } from "../core/errors.js";
import type { EndpointAttempt } from "./pool.js";
import { endpointOrigin, notAnHttpUrl, validateBaseUrl, validateServiceUrl } from "./endpoint.js";

/** One endpoint of a pool: its base URL and its own cap on checks in flight (null: none of its own). */
export interface PoolEndpointSpec {
  readonly url: string;
  readonly concurrency: number | null;
}

/** Most endpoints one pool may have; more is a configuration mistake, not a deployment. */
const MAX_POOL_ENDPOINTS = 64;
const MAX_ENDPOINT_CONCURRENCY = 1024;

/** How a pool's URLs are written: Ollama origins, or OpenAI-compatible base URLs (with a path such as `/v1`). */
export type PoolUrlKind = "origin" | "base_url";

/**
 * Parses one `URL` or `URL#N` given as `flagName`: an http(s) origin without user info, path, query
 * or fragment (`kind` "origin", Ollama) or a base URL whose path is kept ("base_url"); N from 1 to 1024.
 */
export function parsePoolEndpoint(raw: unknown, flagName: string, kind: PoolUrlKind = "origin"): PoolEndpointSpec {
  if (typeof raw !== "string") throw notAnHttpUrl(flagName);
  const hash = raw.lastIndexOf("#");
  let concurrency: number | null = null;
  let url = raw;
  if (hash >= 0) {
    const count = raw.slice(hash + 1);
    if (!/^[1-9][0-9]{0,3}$/.test(count) || Number(count) > MAX_ENDPOINT_CONCURRENCY) {
      throw new UsageError(`${flagName}: the concurrency after "#" must be an integer from 1 to ${MAX_ENDPOINT_CONCURRENCY} (URL#N)`);
    }
    concurrency = Number(count);
    url = raw.slice(0, hash);
  }
  if (kind === "base_url") validateBaseUrl(url, flagName);
  else validateServiceUrl(url, flagName);
  return { url, concurrency };
}

/** Parses every value of a repeatable `flagName`: 1 to 64, no endpoint twice (one server listed twice would count as two replicas). */
export function parsePoolEndpoints(raws: readonly unknown[], flagName: string, kind: PoolUrlKind = "origin"): PoolEndpointSpec[] {
  if (raws.length === 0) throw new UsageError(`${flagName} needs at least one endpoint`);
  if (raws.length > MAX_POOL_ENDPOINTS) throw new UsageError(`${flagName} accepts at most ${MAX_POOL_ENDPOINTS} endpoints`);
  const specs = raws.map((raw) => parsePoolEndpoint(raw, flagName, kind));
  const seen = new Set<string>();
  for (const spec of specs) {
    // One server is one replica, whatever path a base URL names on it.
    const origin = kind === "base_url" ? endpointOrigin(spec.url) : validateServiceUrl(spec.url, flagName);
    if (seen.has(origin)) throw new UsageError(`${flagName} lists the endpoint ${origin} more than once`);
    seen.add(origin);
  }
  return specs;
}

/**
 * Returns an attempt sink writing one JSONL line per attempt: appended to the file at `target` (created, mode 0600,
 * on the first attempt), or handed whole to `target` when it is a function (a stream's write, `--endpoint-log -`).
 */
export function endpointLogWriter(target: string | ((line: string) => void), clock: () => Date = () => new Date()): (attempt: EndpointAttempt) => void {
  const write = typeof target === "string" ? appendLines(target) : target;
  return (attempt) => write(`${JSON.stringify({ time: clock().toISOString(), ...attempt })}\n`);
}

/** Appends each line to the file at `path`, opened on the first line, in one write (looped only for a short write). */
function appendLines(path: string): (line: string) => void {
  let fd: number | null = null;
  return (text) => {
    fd ??= openAppendNoFollowSync(path);
    const line = Buffer.from(text, "utf8");
    let written = 0;
    while (written < line.length) written += writeSync(fd, line, written, line.length - written);
  };
}
