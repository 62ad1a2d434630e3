// `little-canary verify --manifest M [--export E] [--expect-manifest-sha256 HEX] [--json]`:
// consistency of a published pair (and the manifest's hash against a pin). Exit 0 consistent,
// 1 any problem, 3 unreadable files, files given the wrong way round, or usage. Notes (a run
// whose canary was disabled by choice) follow the verdict and never change the exit code.
// Problems name indices and codes, never text.
// Flags → `verifyFiles` (src/verify/verify-files.ts) → print → VERIFY_EXIT (cli/exit-codes.ts).
// With --index, the index of a sharded run instead (cli/verify-index.ts).
import { problemsToShow, STRUCTURAL_PROBLEM_CODES, UNVERIFIABLE_PROBLEM_CODES } from "../../src/verify/problems.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import { VERIFY_EXIT } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import { writeOut } from "../io.js";
import { runVerifyIndex, type VerifyIndexFlags } from "../verify-index.js";
import { UsageError } from "../../src/core/errors.js";

export interface VerifyFlags extends VerifyIndexFlags {
  manifest?: string;
  /** False with `--no-allowlisted`: an allow-listed admission is a problem. */
  allowlisted?: boolean;
}

export async function runVerify(flags: VerifyFlags, io: CliIo): Promise<number> {
  if (flags.index !== undefined || flags.expectIndexSha256 !== undefined) {
    // Never silently ignored: an index run does not apply it to the pairs it lists.
    if (flags.allowlisted === false) throw new UsageError("--no-allowlisted checks one pair (--manifest): it is not supported with --index");
    return runVerifyIndex(flags, io);
  }
  if (flags.manifest === undefined) throw new UsageError("verify needs --manifest (one pair) or --index (a sharded run's index)");
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
  const { consistent, manifestSha256, problems } = result;
  if (flags.json) {
    // Data: every problem, uncapped.
    const report = {
      consistent,
      manifest_sha256: manifestSha256,
      pinned: result.pinned,
      export_checked: result.exportChecked,
      allowlisted: result.allowlisted,
      problems,
      notes: result.notes,
    };
    await writeOut(io.stdout, `${JSON.stringify(report)}\n`);
  } else if (consistent) {
    await writeOut(
      io.stdout,
      `verify: consistent (manifest sha256=${manifestSha256}${result.pinned ? ", matches the pin" : ", not pinned"}` +
        `${result.exportChecked ? "" : "; export not checked"}${result.allowlisted > 0 ? `; ${result.allowlisted} admitted by an allowlist` : ""})\n`,
    );
  } else {
    const { shown, hidden } = problemsToShow(problems);
    const lines = shown.map((problem) => `  - [${problem.code}] ${problem.message}`);
    if (hidden > 0) {
      const last = shown[shown.length - 1];
      const why = last !== undefined && STRUCTURAL_PROBLEM_CODES.has(last.code) ? `; they follow from the [${last.code}] problem above` : "";
      lines.push(`  ... and ${hidden} more problem${hidden === 1 ? "" : "s"} not listed${why} (--json lists all)`);
    }
    await writeOut(io.stdout, `verify: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n${lines.join("\n")}\n`);
  }
  // Facts that are not problems (a run whose canary was disabled by choice), after the verdict.
  if (!flags.json && result.notes.length > 0) await writeOut(io.stdout, result.notes.map((note) => `note: ${note.message}\n`).join(""));
  return consistent ? VERIFY_EXIT.consistent : VERIFY_EXIT.problems;
}
