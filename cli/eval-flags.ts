// The flags of `little-canary eval`, as the `evaluate` verb takes them, and the check that no file
// the run writes is one it reads or another it writes.
import type { RunFile } from "../src/core/file-identity.js";
import type { EvaluateOptions } from "../src/verbs/eval.js";
import type { CliIo } from "./io.js";
import { refuseSharedPaths } from "./shared-files.js";

export type EvalFlags = Omit<EvaluateOptions, "io" | "signal" | "corpus"> & { corpus: string[] };

/**
 * The run record, the report and the endpoint log are written: one that is a corpus, the ids file
 * or another of them (by identity, symlinks and hard links seen through) would destroy it.
 */
export function refuseSharedEvalFiles(flags: EvalFlags, io: CliIo): Promise<void> {
  const pool = (flags.canaryEndpoint ?? []).length > 0;
  return refuseSharedPaths(
    io,
    [...flags.corpus.map((path): RunFile => ["--corpus", path]), ["--ids-file", flags.idsFile]],
    [
      ["--output", flags.output],
      ["--report", flags.report],
      ["--endpoint-log", pool ? flags.endpointLog : null],
    ],
  );
}
