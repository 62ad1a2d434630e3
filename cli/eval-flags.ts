// The flags of `little-canary eval`, as the `evaluate` verb takes them, and the check that no file
// the run writes is one it reads or another it writes.
import type { RunFile } from "../src/core/file-identity.js";
import type { EvaluateOptions } from "../src/verbs/eval.js";
import type { CliIo } from "./io.js";
import { endpointLogFile, refuseSharedPaths } from "./shared-files.js";
import { oneSetting } from "./flags.js";

export type EvalFlags = Omit<EvaluateOptions, "io" | "signal" | "corpus"> & {
  corpus: string[];
  /** `--canary-model`: what every other command calls `--model` here; the same setting. */
  canaryModel?: string;
  /** `--judge-model`: the name `check` gives what this command calls `--judge`; the same setting. */
  judgeModel?: string;
};

/** `--model` and `--canary-model` as one setting (UsageError when they name different models). */
export function evalModel(flags: Pick<EvalFlags, "model" | "canaryModel">): string | undefined {
  return oneSetting(flags.model, flags.canaryModel, "--model", "--canary-model");
}

/** `--judge` and `--judge-model` (what check calls it) as one setting, likewise. */
export function evalJudge(flags: Pick<EvalFlags, "judge" | "judgeModel">): string | undefined {
  return oneSetting(flags.judge, flags.judgeModel, "--judge", "--judge-model");
}

/**
 * The run record, the report and the endpoint log are written: one that is a corpus, the ids file,
 * the file stdout was redirected to or another of them (by identity, symlinks and hard links seen
 * through) would destroy it.
 */
export function refuseSharedEvalFiles(flags: EvalFlags, io: CliIo): Promise<void> {
  const pool = (flags.canaryEndpoint ?? []).length > 0;
  return refuseSharedPaths(
    io,
    [...flags.corpus.map((path): RunFile => ["--corpus", path]), ["--ids-file", flags.idsFile]],
    [
      // Redirected to a file, stdout carries the run's summary there: the record or the report
      // written to it too (`--output /dev/stdout > run.jsonl`) would interleave the two.
      ["standard output", io.stdoutFile],
      ["--output", flags.output],
      ["--report", flags.report],
      ["--endpoint-log", pool ? endpointLogFile(io, flags.endpointLog) : null],
    ],
  );
}
