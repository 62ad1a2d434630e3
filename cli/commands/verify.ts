// `little-canary verify --manifest M [--export E] [--expect-manifest-sha256 HEX] [--json]`: consistency of a published
// pair (and the manifest's hash against a pin). Exit 0 consistent, 1 any problem, 3 unreadable files, files given the
// wrong way round, or usage. Notes (a run whose canary was disabled by choice) follow the verdict and never change the
// exit code. Problems name indices and codes, never text. With --index, the index of a sharded run and every pair it
// lists instead, with the same exit codes. Flags → `verify` (src/verbs/verify.ts) → print → VERIFY_EXIT
// (cli/exit-codes.ts). The library is imported when the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import { VERIFY_EXIT } from "../exit-codes.js";
import { singleValue } from "../flags.js";
import { VERIFY_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import { createProgress } from "../progress.js";
import type { RunState } from "../run-state.js";
import { startPairWorkerAhead } from "../../src/verify/pair-worker-start.js";

export interface VerifyFlags {
  manifest?: string;
  export?: string;
  expectManifestSha256?: string;
  index?: string;
  expectIndexSha256?: string;
  json?: boolean;
  /** False with `--no-allowlisted`: an allow-listed admission is a problem. */
  allowlisted?: boolean;
}

/** Defines `verify` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  return new Command("verify")
    .description("Check that a manifest (and export) are consistent, and optionally that the manifest matches a pinned SHA-256.")
    .option("--manifest <path>", "manifest file", singleValue())
    .option("--export <path>", "export file to check: required when the run wrote one (else export_missing), refused when it did not", singleValue())
    .option("--expect-manifest-sha256 <hex>", "refuse unless the manifest file hashes to this value", singleValue())
    .option("--index <path>", "instead of one pair: the index of a sharded run (little-canary index) and every pair it lists", singleValue())
    .option("--expect-index-sha256 <hex>", "with --index: refuse unless the index file hashes to this value", singleValue())
    .option("--json", "print a JSON report")
    .option("--no-allowlisted", "a record admitted by an ingest allowlist (--allow) is a problem")
    .addHelpText("after", VERIFY_HELP)
    .action(async (flags: VerifyFlags) => {
      state.exitCode = await run(flags, io);
    });
}

/** Verifies one pair (or an index), prints the report and returns the exit code; a large pair's second thread starts loading first. */
export async function run(flags: VerifyFlags, io: CliIo): Promise<number> {
  startPairWorkerAhead(flags.index === undefined ? [flags.manifest, flags.export] : [], { cwd: io.cwd });
  const [{ verify }, { UNVERIFIABLE_PROBLEM_CODES }, { verifyOutput, strictReadNotifier }, { printVerifyIndex }] = await Promise.all([
    import("../../src/verbs/verify.js"),
    import("../../src/verify/problems.js"),
    import("../verify-output.js"),
    import("../index-output.js"),
  ]);
  const { allowlisted, json, ...files } = flags;
  // A large pair takes minutes: megabytes read, drawn on stderr only when it is a terminal.
  const progress = createProgress(io, "verify, MB read");
  const onProgress = (read: number, total: number) => progress.update(Math.floor(read / 1e6), Math.ceil(total / 1e6));
  // A large pair the fast read gives up on is read again, more slowly: say why.
  const onStrictRead = strictReadNotifier(io);
  let verified: Awaited<ReturnType<typeof verify>>;
  try {
    verified = await verify({ ...files, refuseAllowlisted: allowlisted === false, cwd: io.cwd, onProgress, onStrictRead });
  } finally {
    progress.finish();
  }
  if (verified.kind === "index") return printVerifyIndex(verified.result, json === true, io);
  const { result } = verified;
  if (!result.readable) {
    // Nothing was verified: no report on stdout, one line per file that could not be read (or
    // the one line saying the files were given the wrong way round).
    for (const problem of result.problems) {
      if (UNVERIFIABLE_PROBLEM_CODES.has(problem.code)) await writeOut(io.stderr, `error: ${problem.message}\n`);
    }
    return VERIFY_EXIT.unreadable;
  }
  const { report, notes } = verifyOutput(result, json === true);
  await writeOut(io.stdout, report);
  // Facts that are not problems (a run whose canary was disabled by choice), after the verdict.
  if (notes !== "") await writeOut(io.stdout, notes);
  return result.consistent ? VERIFY_EXIT.consistent : VERIFY_EXIT.problems;
}
