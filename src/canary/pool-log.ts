// The endpoint log of a canary pool: one JSON line per attempt (pool.ts EndpointAttempt, plus
// the wall-clock time), saying which endpoint answered each check and how long it took. It is a
// side file, never part of a hashed document. The file is opened for appending (O_APPEND) on the
// first attempt and each line goes out in one write, so concurrent writers (two runs given the
// same log) interleave whole lines; a line is never torn by another writer's line. It is never
// opened through a symlink (core/append.ts): one swapped in after the run checked its files
// cannot redirect the log into the verdict cache or the input.
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
