// What `little-canary verify` prints on stdout for a pair it could read: the JSON report with
// --json (every problem kept: the first 10,000 of each document's records, then one counting the rest), else one verdict line and the first problems, then the notes.
// Data in, text out. And the one line on stderr that says why a large pair takes longer.
import { EXPORT_NAMES_ANOTHER_MANIFEST, EXPORT_NAMES_NONCANONICAL_BYTES, problemsToShow, STRUCTURAL_PROBLEM_CODES } from "../src/verify/problems.js";
import type { VerifyFilesResult } from "../src/verify/verify-files.js";
import type { CliIo } from "./io.js";

/** The report, and the notes that follow it (empty with --json, where they are in the report). */
export function verifyOutput(result: VerifyFilesResult, json: boolean): { readonly report: string; readonly notes: string } {
  const { consistent, manifestSha256, problems } = result;
  if (json) {
    // Data: every problem kept (problems.ts, MAX_KEPT_RECORD_PROBLEMS).
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
  const lines = shown.flatMap((problem) => {
    const line = `  - [${problem.code}] ${problem.message}`;
    // The usual cause, in words: an export beside a manifest it was not published with, or bound
    // to the manifest's bytes after they were reformatted. Not for a pin that does not match (the
    // same code): there the manifest itself is in question.
    const hint = problem.code !== "manifest_sha256" ? null : (MANIFEST_HINTS.get(problem.message) ?? null);
    return hint === null ? [line] : [line, `    ${hint}`];
  });
  if (hidden > 0) {
    const last = shown[shown.length - 1];
    // Named by code, so a problem that does not follow from the structural one is not hidden behind it.
    const codes = [...new Set(problems.slice(shown.length).map((problem) => problem.code))];
    const kinds = ` (${codes.slice(0, MAX_CODES_NAMED).join(", ")}${codes.length > MAX_CODES_NAMED ? ", …" : ""})`;
    const why = last !== undefined && STRUCTURAL_PROBLEM_CODES.has(last.code) ? `; most follow from the [${last.code}] problem above` : "";
    lines.push(`  ... and ${hidden} more problem${hidden === 1 ? "" : "s"} not listed${kinds}${why} (--json lists all)`);
  }
  return { report: `verify: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n${lines.join("\n")}\n`, notes };
}

/** How many codes of the problems not listed are named. */
const MAX_CODES_NAMED = 6;

const MANIFEST_HINTS: ReadonlyMap<string, string> = new Map([
  [
    EXPORT_NAMES_ANOTHER_MANIFEST,
    "the export names another manifest: it was published with another run (or the manifest was edited); use the export published beside this manifest",
  ],
  [
    EXPORT_NAMES_NONCANONICAL_BYTES,
    "the manifest was reformatted or edited after ingest wrote it, and the export bound to the new bytes; use the manifest and the export as they were published",
  ],
]);

/**
 * From this many bytes of pair, a strict re-reading takes long enough to say why: it checks about
 * 22 MB/s on the 2-core machine, on one thread (the fast read: 30 MB/s on one, about 50 on two), so
 * a few seconds from here, and it comes after the part of the fast read already done.
 */
const STRICT_READ_NOTICE_BYTES = 64 << 20;

/**
 * The stderr line for a pair the fast read gave up on (`onStrictRead`), or "" for a small pair.
 * `onTerminal`: stderr is a TTY, so the progress line is cleared first (its next update redraws it).
 */
export function strictReadNotice(manifest: string, totalBytes: number, onTerminal: boolean): string {
  if (totalBytes < STRICT_READ_NOTICE_BYTES) return "";
  return (
    `${onTerminal ? "\r\x1b[K" : ""}verify: the pair of ${manifest} (${Math.round(totalBytes / 1e6)} MB) is not laid out byte for byte as ingest ` +
    "writes it (edited, damaged or written by another tool), holds a record of more than 8 MiB, or a file could not be read; " +
    "reading it again with the strict reader, on one thread: this takes longer, and it says exactly what, if anything, is wrong\n"
  );
}

/** The `onStrictRead` of the CLI: writes strictReadNotice's line, if any, on stderr. */
export function strictReadNotifier(io: CliIo): (manifest: string, totalBytes: number) => void {
  return (manifest, totalBytes) => {
    const notice = strictReadNotice(manifest, totalBytes, io.stderrIsTTY);
    if (notice !== "") io.stderr.write(notice);
  };
}
