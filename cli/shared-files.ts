// One run, one role per file. `screen` and `ingest` read an input and write up to six files
// besides it (the manifest and the export, the SARIF and JUnit reports, the verdict cache, the
// pool's endpoint log, and the GitHub job summary). Any two of them being one file would destroy
// one: a report is renamed over its path at the end (a verdict cache or an endpoint log there
// is replaced), and the endpoint log and the job summary are appended to (an input, a manifest
// or a cache there is corrupted), and publication's lock directories sit beside the targets. So every side file is refused, naming its flag, when it is one
// file with another file of the run (by identity: symlinks and hard links are seen through,
// src/core/file-identity.ts), before anything is read or written. (The input, the manifest and
// the export are kept apart by publication's own target checks, with the same identity.)
// The verdict cache is SQLite in WAL mode: beside its file live `-wal` and `-shm` (and `-journal`
// in a rollback), which SQLite writes and deletes by name, so a report or the export at one of
// them is deleted when the cache closes; they are claimed with the cache.
// `eval`'s endpoint log is kept apart from its corpora, its ids file, its run record and its
// report the same way.
import { resolve } from "node:path";
import { isStderrEndpointLog } from "../src/verbs/canary-settings.js";
import { canonicalPath, refuseSharedFiles as refuseSharedIdentities, type RunFile } from "../src/core/file-identity.js";
import type { CliIo } from "./io.js";

/** The file flags of a run that `refuseSharedFiles` looks at (absent ones are skipped). */
export interface RunFileFlags {
  manifest?: string;
  export?: string;
  sarif?: string;
  junit?: string;
  /** `--cache PATH` (a string) or `--no-cache` (false). */
  cache?: string | false;
  endpointLog?: string;
  /** true (--github), false (--no-github) or undefined (decided by GITHUB_ACTIONS). */
  github?: boolean;
}

/**
 * Throws UsageError, naming both flags and the paths, when one of `sides` is one file with one
 * of `files` or an earlier side file. Paths are resolved against `io.cwd`; `files` are not
 * compared with each other (their own command keeps them apart).
 */
export function refuseSharedPaths(io: CliIo, files: readonly RunFile[], sides: readonly RunFile[]): Promise<void> {
  return refuseSharedIdentities(io.cwd, files, sides);
}

/**
 * `--endpoint-log` as a file of the run, or null when it names the standard error stream (`-`, /dev/stderr): its
 * lines then go through the stream like any other message, so there is no file of the run to keep apart.
 */
export function endpointLogFile(io: CliIo, value: string | undefined): string | undefined | null {
  return value !== undefined && isStderrEndpointLog(value, resolve(io.cwd, value)) ? null : value;
}

/** The files SQLite keeps beside a database at `path` and writes or deletes by name. */
const SQLITE_SIDE_SUFFIXES = ["-wal", "-shm", "-journal"] as const;

/**
 * `--cache PATH` and the SQLite side files beside it (none for --no-cache or no cache): beside
 * the path as given and, for a cache reached through a symlink, beside the file it names (where
 * SQLite puts them).
 */
async function cacheFiles(io: CliIo, cache: string | false | undefined): Promise<RunFile[]> {
  if (typeof cache !== "string" || cache === "") return [["--cache", cache]];
  const bases = new Set([resolve(io.cwd, cache), await canonicalPath(resolve(io.cwd, cache))]);
  const sides = [...bases].flatMap((base) => SQLITE_SIDE_SUFFIXES.map((suffix): RunFile => ["--cache's SQLite side file", `${base}${suffix}`]));
  return [["--cache", cache], ...sides];
}

/**
 * Throws UsageError when the file standard output was redirected to, or a side file of a
 * `screen` or `ingest` run (`--sarif`, `--junit`, `--cache` and its SQLite side files,
 * `--endpoint-log`, `$GITHUB_STEP_SUMMARY` when GitHub output is on), is one file with the input
 * (`-` is standard input, no file), the manifest, the export, their publication locks, or an
 * earlier one of these.
 */
export async function refuseSharedFiles(input: string | null, flags: RunFileFlags, io: CliIo): Promise<void> {
  const github = flags.github ?? io.env.GITHUB_ACTIONS === "true";
  return refuseSharedPaths(
    io,
    [
      ["the input", input === "-" ? null : input],
      ["--manifest", flags.manifest],
      ["--export", flags.export],
      // Publication locks each target as a directory `<target>.lock` while it publishes: a report
      // named there could not be written after the pair was published.
      ["--manifest's publication lock", flags.manifest === undefined ? undefined : `${flags.manifest}.lock`],
      ["--export's publication lock", flags.export === undefined ? undefined : `${flags.export}.lock`],
    ],
    [
      // Redirected to a file, stdout carries the run's document there: the input read from it,
      // the pair published over it, a report renamed over it or a log appended to it would
      // replace or corrupt one or the other. So it is compared with every file of the run.
      ["standard output", io.stdoutFile],
      ["--sarif", flags.sarif],
      ["--junit", flags.junit],
      ...(await cacheFiles(io, flags.cache)),
      ["--endpoint-log", endpointLogFile(io, flags.endpointLog)],
      ["$GITHUB_STEP_SUMMARY", github ? io.env.GITHUB_STEP_SUMMARY : null],
    ],
  );
}
