// `verifyFiles`: the file-based verification behind `little-canary verify`, as a library call.
// It streams the manifest (and export) strictly (stream-pair.ts), checks the manifest's SHA-256
// against a pin, and returns everything as data: unreadable files, a pin mismatch and every
// consistency problem are problems with stable codes, never exceptions (only an invalid option
// throws).
import { resolve } from "node:path";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import type { VerifyProblem } from "./problems.js";
import { readJsonDocument, type DocumentLabel, type ReadDocument } from "../core/read-document.js";
import { verifyParsedManifest, verifyParsedPair } from "./verify-export.js";
import { headOf, streamPair } from "./stream-pair.js";
import type { Obj } from "./_values.js";
import { allowlistedAdmissions, allowlistedProblem } from "./allowlisted.js";
import { displayText } from "../core/display-text.js";

export interface VerifyFilesOptions {
  /** Path of the manifest file. */
  readonly manifest: string;
  /** Path of the export file; omit to check the manifest alone. */
  readonly export?: string | null;
  /**
   * The manifest's SHA-256 (64 hex digits, any case) as pinned out of band. Without it the
   * pair is checked for consistency only, which anyone able to write both files can forge.
   */
  readonly expectManifestSha256?: string | null;
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  /** Size of one read in bytes (default 64 KiB); tests use tiny reads to exercise chunk boundaries. */
  readonly chunkBytes?: number;
  /**
   * Treat records admitted by an ingest allowlist as a problem (`allowlisted_admission`):
   * `verify --no-allowlisted`, for consumers who accept only records nothing was detected in.
   */
  readonly refuseAllowlisted?: boolean;
}

export interface VerifyFilesResult {
  /** True when there is no problem at all (files read, pin matched if given, pair consistent). */
  readonly consistent: boolean;
  /** False when a file could not be read (code `manifest_unreadable` or `export_unreadable`). */
  readonly readable: boolean;
  /** SHA-256 (hex) of the manifest file's bytes; null when it could not be read. */
  readonly manifestSha256: string | null;
  readonly pinned: boolean;
  readonly exportChecked: boolean;
  /**
   * Records the manifest says an ingest allowlist admitted (`counts.allowlisted`; 0 when none
   * or unreadable). Only as trustworthy as the rest: rely on it when `consistent`.
   */
  readonly allowlisted: number;
  /** Every problem found, in check order. */
  readonly problems: VerifyProblem[];
}

/** Normalises a pin; throws UsageError unless it is 64 hex digits. */
export function normalizeManifestPin(pin: string): string {
  const normalized = pin.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(normalized)) throw new UsageError("--expect-manifest-sha256 must be 64 hex digits");
  return normalized;
}

async function readOrProblem(path: string, label: DocumentLabel, problems: VerifyProblem[]): Promise<ReadDocument | null> {
  try {
    return await readJsonDocument(path, label);
  } catch (error) {
    const message = error instanceof LittleCanaryError && error.code === "io" ? error.message : `cannot read ${label} ${displayText(path)}`;
    problems.push({ code: label === "manifest" ? "manifest_unreadable" : "export_unreadable", message });
    return null;
  }
}

/**
 * What the verification read, from the same bytes it checked: the manifest's members other
 * than `records` and the export file's SHA-256 (null when a file could not be read). The index
 * of a sharded run is built from these, so what it records is what was verified.
 */
export interface VerifiedDocuments {
  readonly manifestHead: Obj | null;
  readonly exportSha256: string | null;
}

/** How a verification ran: streamed, or over whole documents (see `verifyFilesWithMode`). */
export type VerifyMode = "streamed" | "whole";

/**
 * Verifies a published pair from its files: strict reading (UTF-8, no BOM, no duplicate keys
 * at any depth, bounded memory), the pin, then every consistency check of `verifyExport` (or
 * `verifyManifestOnly` without an export). Problems name codes and record indices, never
 * content. Throws only UsageError for an invalid pin.
 *
 * Both files are streamed (docs/ingest.md, "Verify memory"): memory is bounded by one record
 * of each, whatever the number of records.
 */
export async function verifyFiles(options: VerifyFilesOptions): Promise<VerifyFilesResult> {
  return (await verifyFilesWithMode(options)).result;
}

/**
 * `verifyFiles`, saying how it ran: "streamed" normally; "whole" when the pair is not laid out
 * as ingest writes it (export records not in increasing index order, or a manifest member that
 * sorts before `records` placed after it), which only the whole-document checks can judge
 * exactly. Those documents are read whole, within MAX_DOCUMENT_BYTES and MAX_DOCUMENT_VALUES.
 */
export async function verifyFilesWithMode(options: VerifyFilesOptions): Promise<{ result: VerifyFilesResult; mode: VerifyMode; documents: VerifiedDocuments }> {
  const pin = options.expectManifestSha256 == null ? null : normalizeManifestPin(options.expectManifestSha256);
  const base = options.cwd ?? process.cwd();
  const manifestPath = resolve(base, options.manifest);
  const exportPath = options.export == null ? null : resolve(base, options.export);
  const streamed = await streamPair(manifestPath, exportPath, options.chunkBytes);
  if (streamed === "reread") return { ...(await verifyWhole(manifestPath, exportPath, pin, options)), mode: "whole" };
  const problems: VerifyProblem[] = [...streamed.readProblems];
  const manifestSha = streamed.manifestSha256;
  const readable = streamed.readProblems.length === 0;
  if (manifestSha !== null && pin !== null && pin !== manifestSha) {
    problems.push({ code: "manifest_sha256", message: "manifest sha256 does not match --expect-manifest-sha256" });
  }
  if (readable) problems.push(...streamed.problems);
  const allowlisted = readable ? allowlistedAdmissions(streamed.manifestHead) : 0;
  refuseAllowlisted(options, allowlisted, problems);
  const result = {
    consistent: problems.length === 0,
    readable,
    manifestSha256: manifestSha,
    pinned: pin !== null,
    exportChecked: exportPath !== null && readable,
    allowlisted,
    problems,
  };
  return { result, mode: "streamed", documents: { manifestHead: streamed.manifestHead, exportSha256: readable ? streamed.exportSha256 : null } };
}

/** With `refuseAllowlisted`, allow-listed admissions become one problem. */
function refuseAllowlisted(options: VerifyFilesOptions, allowlisted: number, problems: VerifyProblem[]): void {
  if (options.refuseAllowlisted !== true) return;
  const problem = allowlistedProblem(allowlisted);
  if (problem !== null) problems.push(problem);
}

/** The whole-document verification (documents read whole, then checked). */
async function verifyWhole(
  manifestPath: string,
  exportPath: string | null,
  pin: string | null,
  options: VerifyFilesOptions,
): Promise<{ result: VerifyFilesResult; documents: VerifiedDocuments }> {
  const problems: VerifyProblem[] = [];
  const manifest = await readOrProblem(manifestPath, "manifest", problems);
  // The export is read even when the manifest is not, so both read problems are reported.
  const exported = exportPath === null ? null : await readOrProblem(exportPath, "export", problems);
  const readable = manifest !== null && (exportPath === null || exported !== null);
  if (manifest !== null && pin !== null && pin !== manifest.sha256) {
    problems.push({ code: "manifest_sha256", message: "manifest sha256 does not match --expect-manifest-sha256" });
  }
  if (readable && manifest !== null) {
    problems.push(
      ...(exported === null ? verifyParsedManifest(manifest.value, manifest.sha256) : verifyParsedPair(exported.value, manifest.value, manifest.sha256)),
    );
  }
  const allowlisted = readable && manifest !== null ? allowlistedAdmissions(manifest.value) : 0;
  refuseAllowlisted(options, allowlisted, problems);
  const result = {
    consistent: problems.length === 0,
    readable,
    manifestSha256: manifest?.sha256 ?? null,
    pinned: pin !== null,
    exportChecked: exportPath !== null && readable,
    allowlisted,
    problems,
  };
  return { result, documents: { manifestHead: manifest === null ? null : headOf(manifest.value), exportSha256: readable ? (exported?.sha256 ?? null) : null } };
}
