// One run, one role per file. `screen` and `ingest` read an input and write up to six files
// besides it (the manifest and the export, the SARIF and JUnit reports, the verdict cache, the
// pool's endpoint log, and the GitHub job summary). Any two of them being one path would destroy
// one: a report is renamed over its path at the end (a verdict cache or an endpoint log there
// is replaced), and the endpoint log and the job summary are appended to (an input, a manifest
// or a cache there is corrupted). So every side file is refused, naming its flag, when its path
// is the path of another file of the run, before anything is read or written. (The input, the
// manifest and the export are kept apart by publication's own target checks.) `eval`'s endpoint
// log is kept apart from its corpora, its ids file, its run record and its report the same way.
import { resolve } from "node:path";
import { UsageError } from "../src/core/errors.js";
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

/** A file of a run: the flag (or "the input") that names it, and its path (absent: none). */
export type RunFile = readonly [label: string, path: string | false | null | undefined];

/**
 * Throws UsageError, naming the flag, when one of `sides` names the same path as one of
 * `files` or an earlier side file. Paths are resolved against `io.cwd`; `files` are not
 * compared with each other (their own command keeps them apart).
 */
export function refuseSharedPaths(io: CliIo, files: readonly RunFile[], sides: readonly RunFile[]): void {
  const taken = new Map<string, string>();
  const claim = ([label, path]: RunFile, side: boolean): void => {
    if (typeof path !== "string" || path === "") return;
    const at = resolve(io.cwd, path);
    const other = taken.get(at);
    if (other !== undefined && side) throw new UsageError(`${label} names the same file as ${other}; give each file of a run its own path`);
    if (other === undefined) taken.set(at, label);
  };
  for (const file of files) claim(file, false);
  for (const file of sides) claim(file, true);
}

/**
 * Throws UsageError when a side file of a `screen` or `ingest` run (`--sarif`, `--junit`,
 * `--cache`, `--endpoint-log`, `$GITHUB_STEP_SUMMARY` when GitHub output is on) names the same
 * path as the input (`-` is standard input, no file), the manifest, the export or an earlier
 * side file.
 */
export function refuseSharedFiles(input: string | null, flags: RunFileFlags, io: CliIo): void {
  const github = flags.github ?? io.env.GITHUB_ACTIONS === "true";
  refuseSharedPaths(
    io,
    [
      ["the input", input === "-" ? null : input],
      ["--manifest", flags.manifest],
      ["--export", flags.export],
    ],
    [
      ["--sarif", flags.sarif],
      ["--junit", flags.junit],
      ["--cache", flags.cache],
      ["--endpoint-log", flags.endpointLog],
      ["$GITHUB_STEP_SUMMARY", github ? io.env.GITHUB_STEP_SUMMARY : null],
    ],
  );
}
