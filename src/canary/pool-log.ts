// The endpoint log of a canary pool: one JSON line per attempt (pool.ts EndpointAttempt plus the
// time), a side file never hashed. Opened O_APPEND on the first attempt, never through a symlink
// (core/append.ts), and written one whole line per write, so concurrent runs never tear a line.
import { writeSync } from "node:fs";
import { openAppendNoFollowSync } from "../core/append.js";
import type { EndpointAttempt } from "./pool.js";

/** Returns an attempt sink that appends JSONL lines to `path` (created, mode 0600, on the first attempt). */
export function endpointLogWriter(path: string, clock: () => Date = () => new Date()): (attempt: EndpointAttempt) => void {
  let fd: number | null = null;
  return (attempt) => {
    fd ??= openAppendNoFollowSync(path);
    const line = Buffer.from(`${JSON.stringify({ time: clock().toISOString(), ...attempt })}\n`, "utf8");
    let written = 0;
    while (written < line.length) written += writeSync(fd, line, written, line.length - written);
  };
}
