// The admitted records of a published pair for the RAG adapters, read from the very bytes that
// were verified: `verifyFiles` checks the pair on disk, both files are then read once, the pin is
// checked again on those bytes and `verifyExport` runs on them, so a file replaced in between is
// refused. Anything wrong throws: all the admitted records, each once and in order, or none.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { readStrictDocument } from "../core/strict-document.js";
import type { ExportRecord, IngestExport } from "../documents/schemas.js";
import type { VerifyProblem } from "../verify/problems.js";
import { verifyExport } from "../verify/verify-export.js";
import { normalizePin, verifyFiles } from "../verify/verify-files.js";
import { displayText } from "../core/display-text.js";

/** Where the pair is and how it is pinned. */
export interface VerifiedExportOptions {
  /** Path of the manifest (resolved against `cwd`). */
  readonly manifest: string;
  /** Path of the export (resolved against `cwd`). */
  readonly export: string;
  /** The manifest's SHA-256 as pinned out of band (64 hex digits). Required unless `allowUnpinned`. */
  readonly expectManifestSha256?: string | null;
  /** Check the pair's consistency only; anyone able to write both files can forge such a pair. */
  readonly allowUnpinned?: boolean;
  /** Directory relative paths are resolved against (default: the process's). */
  readonly cwd?: string;
}

/** The pair failed verification (or was not pinned): nothing of it may be used. */
export class ExportVerificationError extends LittleCanaryError {
  override readonly name = "ExportVerificationError";
  /** Every problem found (codes and messages; never record text). */
  readonly problems: readonly VerifyProblem[];
  constructor(message: string, problems: readonly VerifyProblem[]) {
    super("verification", message);
    this.problems = problems;
  }
}

/** A verified export's admitted records and the digest they are bound to. */
export interface VerifiedExport {
  /** SHA-256 of the manifest's bytes. */
  readonly manifestSha256: string;
  /** True when the digest was pinned by the caller (false only with `allowUnpinned`). */
  readonly pinned: boolean;
  /** The admitted records, in manifest index order. */
  readonly records: readonly ExportRecord[];
}

function refused(problems: readonly VerifyProblem[]): ExportVerificationError {
  const shown = problems.slice(0, 5).map((problem) => `${problem.code}: ${problem.message}`);
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : "";
  return new ExportVerificationError(`the export did not verify (${shown.join("; ")}${more})`, problems);
}

/** Refuses an adapter given no pin without `allowUnpinned: true` (at construction: the mistake shows where it is made). */
export function requirePin(options: VerifiedExportOptions): void {
  if (options.expectManifestSha256 == null && options.allowUnpinned !== true) {
    throw new UsageError("expectManifestSha256 is required: pin the manifest's SHA-256 (or pass allowUnpinned: true to check consistency only)");
  }
}

async function readBytes(path: string, label: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new LittleCanaryError("io", `cannot read the ${label} ${displayText(path)} (${code})`, { cause: error });
  }
}

/** Verifies the pair and returns its admitted records; throws ExportVerificationError, UsageError (no pin) or an `io` error. */
export async function loadVerifiedExport(options: VerifiedExportOptions): Promise<VerifiedExport> {
  requirePin(options);
  const pin = options.expectManifestSha256 == null ? null : normalizePin(options.expectManifestSha256, "expectManifestSha256");
  const cwd = options.cwd ?? process.cwd();
  const manifestPath = resolve(cwd, options.manifest);
  const exportPath = resolve(cwd, options.export);
  const checked = await verifyFiles({ manifest: manifestPath, export: exportPath, expectManifestSha256: pin });
  if (!checked.consistent) throw refused(checked.problems);
  // Read once; everything below is about these bytes.
  const manifestBytes = await readBytes(manifestPath, "manifest");
  const exportBytes = await readBytes(exportPath, "export");
  const manifestSha256 = sha256Hex(manifestBytes);
  if (manifestSha256 !== checked.manifestSha256 || (pin !== null && manifestSha256 !== pin)) {
    throw refused([{ code: "manifest_sha256", message: "the manifest changed after it was verified" }]);
  }
  const problems = verifyExport(exportBytes, manifestBytes, { manifestBytes });
  if (problems.length > 0) throw refused(problems);
  const read = readStrictDocument(exportBytes);
  if (!read.ok) throw refused([{ code: "export_unreadable", message: "the export could not be read again" }]);
  const records = (read.value as IngestExport).records;
  return { manifestSha256, pinned: pin !== null, records };
}
