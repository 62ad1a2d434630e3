// One run, one role per file. `screen` and `ingest` read an input and write up to six files
// besides it (the manifest and the export, the SARIF and JUnit reports, the verdict cache, the
// pool's endpoint log, and the GitHub job summary). Any two of them being one path would destroy
// one: a report is renamed over its path at the end (a verdict cache or an endpoint log there
// is replaced), and the endpoint log and the job summary are appended to (an input, a manifest
// or a cache there is corrupted). So every side file is refused, naming its flag, when its path
// is the path of another file of the run, before anything is read or written. (The input, the
// manifest and the export are kept apart by publication's own target checks.)
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

/**
 * Throws UsageError when a side file of the run (`--sarif`, `--junit`, `--cache`,
 * `--endpoint-log`, `$GITHUB_STEP_SUMMARY` when GitHub output is on) names the same path as the
 * input (`-` is standard input, no file), the manifest, the export or an earlier side file.
 */
export function refuseSharedFiles(input: string | null, flags: RunFileFlags, io: CliIo): void {
  const taken = new Map<string, string>();
  const claim = (label: string, path: string | false | undefined, side: boolean): void => {
    if (typeof path !== "string" || path === "") return;
    const at = resolve(io.cwd, path);
    const other = taken.get(at);
    if (other !== undefined && side) throw new UsageError(`${label} names the same file as ${other}; give each file of a run its own path`);
    if (other === undefined) taken.set(at, label);
  };
  if (input !== null && input !== "-") claim("the input", input, false);
  claim("--manifest", flags.manifest, false);
  claim("--export", flags.export, false);
  claim("--sarif", flags.sarif, true);
  claim("--junit", flags.junit, true);
  claim("--cache", flags.cache, true);
  claim("--endpoint-log", flags.endpointLog, true);
  const github = flags.github ?? io.env.GITHUB_ACTIONS === "true";
  if (github) claim("$GITHUB_STEP_SUMMARY", io.env.GITHUB_STEP_SUMMARY, true);
}
