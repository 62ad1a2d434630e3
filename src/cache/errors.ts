// Typed errors of the verdict cache and the run id index. A file problem names the path (the
// caller gave it; it is never record text); `reason` tells them apart for callers and tests.
import { LittleCanaryError } from "../core/errors.js";

/** Why a cache (or id index) file cannot be used, and how a message about an SQLite error says it. */
export const CACHE_FILE_PROBLEMS = {
  missing: "does not exist", // and the caller asked not to create it
  not_sqlite: "is not an SQLite database (or is damaged)",
  foreign: "is not a little-canary verdict cache",
  unknown_schema: "has an unknown schema", // a schema version this library does not know
  unopenable: "cannot be opened", // a directory, no permission, ...
  busy: "stayed locked by another process for longer than the busy timeout",
  corrupt_entry: "holds an entry that does not read back",
  write_failed: "could not be written", // disk full, read-only file, ...
} as const;
export type CacheFileProblem = keyof typeof CACHE_FILE_PROBLEMS;

/** A verdict cache or id index file cannot be used; the message names the path. */
export class CacheFileError extends LittleCanaryError {
  override readonly name = "CacheFileError";
  /** What is wrong with the file. */
  readonly problem: CacheFileProblem;
  /** The file's path as the caller gave it. */
  readonly path: string;

  constructor(problem: CacheFileProblem, path: string, message: string, options?: { cause?: unknown }) {
    // An unknown schema is a configuration problem (the wrong file, or a newer library); the
    // rest are files that cannot be read or written.
    super(problem === "unknown_schema" || problem === "foreign" ? "config" : "io", message, options);
    this.problem = problem;
    this.path = path;
  }
}

/**
 * A caller tried to store a verdict the cache never keeps: anything but an exercised pass, flag
 * or block (a degraded, unexercised, error or not_checked result must be checked again).
 */
export class UncacheableVerdictError extends LittleCanaryError {
  override readonly name = "UncacheableVerdictError";
  /** The state the caller tried to store. */
  readonly state: string;
  /** The exercised flag the caller gave. */
  readonly exercised: boolean;

  constructor(state: string, exercised: boolean) {
    super(
      "usage",
      `the verdict cache stores only exercised pass, flag or block verdicts; refused state ${JSON.stringify(String(state).slice(0, 20))}` +
        `${exercised ? "" : " (not exercised)"}`,
    );
    this.state = state;
    this.exercised = exercised;
  }
}
