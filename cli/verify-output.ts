// What `little-canary verify` prints on stdout for a pair it could read: the JSON report with
// --json (every problem, uncapped), else one verdict line and the first problems, then the notes.
// Data in, text out.
import { problemsToShow, STRUCTURAL_PROBLEM_CODES } from "../src/verify/problems.js";
import type { VerifyFilesResult } from "../src/verify/verify-files.js";

/** The report, and the notes that follow it (empty with --json, where they are in the report). */
export function verifyOutput(result: VerifyFilesResult, json: boolean): { readonly report: string; readonly notes: string } {
  const { consistent, manifestSha256, problems } = result;
  if (json) {
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
    return { report: `${JSON.stringify(report)}\n`, notes: "" };
  }
  const notes = result.notes.map((note) => `note: ${note.message}\n`).join("");
  if (consistent) {
    const report =
      `verify: consistent (manifest sha256=${manifestSha256}${result.pinned ? ", matches the pin" : ", not pinned"}` +
      `${result.exportChecked ? "" : "; export not checked"}${result.allowlisted > 0 ? `; ${result.allowlisted} admitted by an allowlist` : ""})\n`;
    return { report, notes };
  }
  const { shown, hidden } = problemsToShow(problems);
  const lines = shown.map((problem) => `  - [${problem.code}] ${problem.message}`);
  if (hidden > 0) {
    const last = shown[shown.length - 1];
    const why = last !== undefined && STRUCTURAL_PROBLEM_CODES.has(last.code) ? `; they follow from the [${last.code}] problem above` : "";
    lines.push(`  ... and ${hidden} more problem${hidden === 1 ? "" : "s"} not listed${why} (--json lists all)`);
  }
  return { report: `verify: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n${lines.join("\n")}\n`, notes };
}
