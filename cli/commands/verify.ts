// `little-canary verify --manifest M [--export E] [--expect-manifest-sha256 HEX] [--json]`:
// consistency of a published pair (and the manifest's hash against a pin). Exit 0 consistent,
// 1 any problem, 3 unreadable files, files given the wrong way round, or usage. Notes (a run
// whose canary was disabled by choice) follow the verdict and never change the exit code.
// Problems name indices and codes, never text.
// Flags → `verifyFiles` (src/verify/verify-files.ts) → print → VERIFY_EXIT (cli/exit-codes.ts).
// With --index, the index of a sharded run instead (cli/verify-index.ts). The library is
// imported when the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import { UsageError } from "../../src/core/errors.js";
import { VERIFY_EXIT } from "../exit-codes.js";
import { VERIFY_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";
import type { VerifyIndexFlags } from "../verify-index.js";

export interface VerifyFlags extends VerifyIndexFlags {
  manifest?: string;
  /** False with `--no-allowlisted`: an allow-listed admission is a problem. */
  allowlisted?: boolean;
}

/** Defines `verify` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  return new Command("verify")
    .description("Check that a manifest (and export) are consistent, and optionally that the manifest matches a pinned SHA-256.")
    .option("--manifest <path>", "manifest file")
    .option("--export <path>", "export file to check against the manifest")
    .option("--expect-manifest-sha256 <hex>", "refuse unless the manifest file hashes to this value")
    .option("--index <path>", "instead of one pair: the index of a sharded run (little-canary index) and every pair it lists")
    .option("--expect-index-sha256 <hex>", "with --index: refuse unless the index file hashes to this value")
    .option("--json", "print a JSON report")
    .option("--no-allowlisted", "a record admitted by an ingest allowlist (--allow) is a problem")
    .addHelpText("after", VERIFY_HELP)
    .action(async (flags: VerifyFlags) => {
      state.exitCode = await run(flags, io);
    });
}

/** Verifies one pair (or an index), prints the report and returns the exit code. */
export async function run(flags: VerifyFlags, io: CliIo): Promise<number> {
  if (flags.index !== undefined || flags.expectIndexSha256 !== undefined) {
    // Never silently ignored: an index run does not apply it to the pairs it lists.
    if (flags.allowlisted === false) throw new UsageError("--no-allowlisted checks one pair (--manifest): it is not supported with --index");
    return (await import("../verify-index.js")).runVerifyIndex(flags, io);
  }
  if (flags.manifest === undefined) throw new UsageError("verify needs --manifest (one pair) or --index (a sharded run's index)");
  const [{ UNVERIFIABLE_PROBLEM_CODES }, { verifyFiles }, { verifyOutput }] = await Promise.all([
    import("../../src/verify/problems.js"),
    import("../../src/verify/verify-files.js"),
    import("../verify-output.js"),
  ]);
  const result = await verifyFiles({
    manifest: flags.manifest,
    export: flags.export ?? null,
    expectManifestSha256: flags.expectManifestSha256 ?? null,
    pinName: "--expect-manifest-sha256",
    cwd: io.cwd,
    refuseAllowlisted: flags.allowlisted === false,
  });
  if (!result.readable) {
    // Nothing was verified: no report on stdout, one line per file that could not be read (or
    // the one line saying the files were given the wrong way round).
    for (const problem of result.problems) {
      if (UNVERIFIABLE_PROBLEM_CODES.has(problem.code)) await writeOut(io.stderr, `error: ${problem.message}\n`);
    }
    return VERIFY_EXIT.unreadable;
  }
  const { report, notes } = verifyOutput(result, flags.json === true);
  await writeOut(io.stdout, report);
  // Facts that are not problems (a run whose canary was disabled by choice), after the verdict.
  if (notes !== "") await writeOut(io.stdout, notes);
  return result.consistent ? VERIFY_EXIT.consistent : VERIFY_EXIT.problems;
}
