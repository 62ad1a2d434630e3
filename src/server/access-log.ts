// The service's logs. Log lines: `<ISO time> [<LEVEL>] <message>`, to stderr from the CLI and
// nowhere by default in the library; messages hold fixed text, configuration and error class names
// only. The access log of `serve --access-log`: one JSON line per request on stderr, saying what was
// asked and how it ended, never what was sent: an entry holds only values the server chose or
// checked against a fixed list (an unknown method or route is "other", so a query, path or
// header never reaches the log), the status sent, and for a /check answered 200 the state
// `screen` gives a batch item. Never request text, verdict contents, headers or addresses.
import type { BatchState } from "../documents/schemas.js";
import { COVERAGES, type Coverage } from "../documents/verdict-schema.js";
import { routeMethod } from "./check-request.js";

/** The level of a log line. */
export type LogLevel = "INFO" | "WARNING" | "ERROR";
/** Receives the service's log lines. */
export type ServerLog = (level: LogLevel, message: string) => void;

/** The library's default log: nowhere. */
export const silentLog: ServerLog = () => {};

/** Writes each log line to `stream`, stamped with `now`. */
export function streamLog(stream: { write(text: string): unknown }, now: () => Date = () => new Date()): ServerLog {
  return (level, message) => {
    stream.write(`${now().toISOString()} [${level}] ${message}\n`);
  };
}

/** One request in the access log (the stream writer adds `time`). */
export interface AccessLogEntry {
  /** The request method when it is a common one, else "other". */
  readonly method: string;
  /** The path when it is one of the service's routes (exactly, no query), else "other". */
  readonly route: "/health" | "/ready" | "/check" | "/screen" | "other";
  /** Status sent, or null when the connection closed before an answer was sent. */
  readonly status: number | null;
  /** `/check` answered 200 only: pass, flag, block, degraded or unexercised (as `screen` classes an item). */
  readonly verdict?: BatchState;
  /** `/check` answered 200 only, when the verdict carries it: complete, partial or none. */
  readonly coverage?: Coverage;
  /** From the request head's arrival to the end of the answer, in milliseconds; null for a request the HTTP parser refused. */
  readonly latency_ms: number | null;
}

/** Receives one entry per request. */
export type AccessLog = (entry: AccessLogEntry) => void;

const METHODS = new Set(["GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"]);

/** The method as logged: a common method, else "other". */
export function loggedMethod(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : "other";
}

/** The route as logged: one of the service's paths exactly, else "other". */
export function loggedRoute(target: string | undefined): AccessLogEntry["route"] {
  return target !== undefined && routeMethod(target) !== undefined ? (target as AccessLogEntry["route"]) : "other";
}

/** The verdict's coverage when it carries a known one (read from the wire form, if present). */
export function loggedCoverage(wire: Readonly<Record<string, unknown>>): Coverage | undefined {
  return COVERAGES.find((known) => known === wire["coverage"]);
}

/** Writes each entry as one JSON line, `time` (ISO 8601, when it is written) first. */
export function streamAccessLog(stream: { write(text: string): unknown }, now: () => Date = () => new Date()): AccessLog {
  return (entry) => {
    stream.write(`${JSON.stringify({ time: now().toISOString(), ...entry })}\n`);
  };
}
