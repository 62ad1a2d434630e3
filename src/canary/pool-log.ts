// The endpoint log of a canary pool: one JSON line per attempt (pool.ts EndpointAttempt, plus
// the wall-clock time), saying which endpoint answered each check and how long it took. It is a
// side file, never part of a hashed document. Each line is appended with one write to a file
// opened for appending, so concurrent writers (two runs given the same log) interleave whole
// lines; a line is never torn by another writer's line.
import { appendFileSync } from "node:fs";
import type { EndpointAttempt } from "./pool.js";

/** Returns an attempt sink that appends JSONL lines to `path` (created on the first attempt). */
export function endpointLogWriter(path: string, clock: () => Date = () => new Date()): (attempt: EndpointAttempt) => void {
  return (attempt) => {
    appendFileSync(path, `${JSON.stringify({ time: clock().toISOString(), ...attempt })}\n`, { encoding: "utf8", flag: "a", mode: 0o600 });
  };
}
