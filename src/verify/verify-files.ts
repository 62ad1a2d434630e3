// `verifyFiles`: the file-based verification behind `little-canary verify`, as a library call.
// Unreadable files, a pin mismatch and every consistency problem are problems with stable codes,
// never exceptions (only an invalid option throws).
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "../core/errors.js";
import { refuseUnknownOptions } from "../core/guards.js";
import { checkReadingOptions, flagOption, guardedCallback, optionalPathOption, pathOption, pinOption } from "./option-checks.js";
import { allowlistedAdmissions, appendAll, failureProblem, refuseAllowlisted, type VerifyNote, type VerifyProblem } from "./problems.js";
import { canaryDisabledByChoice } from "./manifest-checks.js";
import { readFailureMessage, readJsonDocument, type DocumentLabel, type ValueCap, type ReadDocument } from "../core/read-document.js";
import { streamPair, type OtherShare, type PairReader, type PairReading } from "./stream-pair.js";
import { SHARE_BLOCK } from "./pair-share.js";
import { PAIR_WORKER_URL, twoThreadsFor } from "./pair-worker-start.js";
import { headOf, NO_EXPORT, verifyHeld } from "./verify-stream.js";
import { FILE_WORDING, swappedDocuments } from "./swapped.js";
import type { Obj } from "./_values.js";
import { displayText } from "../core/display-text.js";

export interface VerifyFilesOptions {
  /** Path of the manifest file. */
  readonly manifest: string;
  /** Path of the export file; omit to check the manifest alone. */
  readonly export?: string | null;
  /**
   * The manifest's SHA-256 (64 hex digits, any case) as pinned out of band. Without it (left out,
   * or null) the pair is checked for consistency only, which anyone able to write both files can
   * forge; given as undefined (an unset environment variable) it is refused (pinOption).
   */
  readonly expectManifestSha256?: string | null;
  /** What messages call the pin: `expectManifestSha256` by default (the CLI passes `--expect-manifest-sha256`). */
  readonly pinName?: string;
  /** Relative paths are resolved against this directory (default: the process's). */
  readonly cwd?: string;
  /**
   * Size of one read in bytes, a whole number from 1 to 64 MiB (default 256 KiB on the fast read,
   * 64 KiB on the exact one); tests use tiny reads to exercise chunk boundaries.
   */
  readonly chunkBytes?: number;
  /**
   * Treat records admitted by an ingest allowlist as a problem (`allowlisted_admission`):
   * `verify --no-allowlisted`, for consumers who accept only records nothing was detected in.
   */
  readonly refuseAllowlisted?: boolean;
  /**
   * Hears how far reading got: bytes of both files read so far, of their total. A pair not laid
   * out as ingest writes it is read a second time, strictly, and that reading counts from 0 again.
   */
  readonly onProgress?: (read: number, total: number) => void;
  /**
   * Hears, once and before it starts, that the fast read gave up, so the strict reader reads the
   * pair again, with the bytes of both files: on one thread and after the fast read's wasted part,
   * so a large pair takes about twice as long or more, which a caller may want to say. The fast
   * read gives up on bytes not laid out as ingest writes them (edited, damaged or written by
   * another tool) and on a file it cannot read (the strict reader then says which and why).
   */
  readonly onStrictRead?: (totalBytes: number) => void;
}

export interface VerifyFilesResult {
  /** True when there is no problem at all (files read, pin matched if given, pair consistent). */
  readonly consistent: boolean;
  /** False when nothing could be verified: a file could not be read, or the manifest given is an export (UNVERIFIABLE_PROBLEM_CODES). */
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
  /**
   * Facts that are not problems, such as `canary_disabled` for a run whose canary was turned off
   * by choice (nothing admitted). Like `allowlisted`, only as trustworthy as the rest.
   */
  readonly notes: VerifyNote[];
}

/** The notes for a manifest's members other than `records` (none when it could not be read). */
function notesOf(manifestHead: Obj | null): VerifyNote[] {
  if (manifestHead === null || !canaryDisabledByChoice(manifestHead)) return [];
  return [{ code: "canary_disabled", message: "canary disabled: nothing admitted (the run turned the canary off, so only the structural layer ran)" }];
}

/** The largest read verifyFiles takes (chunkBytes): memory holds a few chunks per file. */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/** Every option verifyFiles takes; `satisfies` keeps the list equal to the interface. */
const VERIFY_FILES_OPTION_KEYS = Object.keys({
  manifest: true,
  export: true,
  expectManifestSha256: true,
  pinName: true,
  cwd: true,
  chunkBytes: true,
  refuseAllowlisted: true,
  onProgress: true,
  onStrictRead: true,
} satisfies Record<keyof VerifyFilesOptions, true>);

async function readOrProblem(path: string, label: DocumentLabel, problems: VerifyProblem[], cap: ValueCap): Promise<ReadDocument | null> {
  try {
    return await readJsonDocument(path, label, cap);
  } catch (error) {
    problems.push({ code: label === "manifest" ? "manifest_unreadable" : "export_unreadable", message: readFailureMessage(error, label, path) });
    return null;
  }
}

/**
 * What the verification read, from the bytes it checked (null when not read): the manifest's head
 * and the export's SHA-256 (only when asked: `hashExport` of verifyFilesWithMode). A sharded run's
 * index is built from these, so it records what was verified.
 */
export interface VerifiedDocuments {
  readonly manifestHead: Obj | null;
  readonly exportSha256: string | null;
}

/** How a verification ran: streamed, or over whole documents (see `verifyFilesWithMode`). */
export type VerifyMode = "streamed" | "whole";

/**
 * Verifies a published pair from its files: strict reading (UTF-8, no BOM, no duplicate keys
 * at any depth), the pin, then every consistency check of `verifyExport` (or `verifyManifestOnly`
 * without an export). Both files are streamed, so memory is bounded by one record of each
 * (docs/ingest.md, "Verify memory"). Problems name codes and record indices, never content.
 * Throws only UsageError, for an invalid pin, chunkBytes or other option, or an option it does
 * not know; and what an `onProgress` of the caller's threw (once the pair was read).
 */
export async function verifyFiles(options: VerifyFilesOptions): Promise<VerifyFilesResult> {
  return (await verifyFilesWithMode(options)).result;
}

/**
 * `verifyFiles`, saying how it ran: "streamed" normally; "whole" when the pair is not laid out as
 * ingest writes it (export records out of index order, or a manifest member that sorts before
 * `records` placed after it), which only the whole lists can judge: the documents are then read
 * whole, within MAX_DOCUMENT_BYTES and MAX_DOCUMENT_VALUES, and fed to the verifier from memory.
 * `reader` (internal, for tests): "canonical" (the default) reads canonical files fast and any
 * other again with the strict grammar; "exact" uses the strict grammar only. The result says
 * which one read the pair; the outcome is the same either way (test/verify/fast-read.test.ts).
 * `other` (internal, for tests): where the canonical reader checks its second share of the
 * records (null: one thread); by default a worker thread for a large pair (`secondShare`).
 * `cleanPairs`: how many records were read as clean pairs from their bytes (clean-pair.ts).
 * `hashExport`: the export's SHA-256 is wanted in `documents` (a sharded run's index records it);
 * otherwise the fast read does not hash the export, which no check of a pair needs.
 */
export async function verifyFilesWithMode(
  options: VerifyFilesOptions,
  reader: PairReader = "canonical",
  other?: OtherShare | null,
  hashExport = false,
): Promise<{ result: VerifyFilesResult; mode: VerifyMode; reader: PairReader; documents: VerifiedDocuments; cleanPairs: number }> {
  // A misspelt pin (`expectManifestSHA256`) would otherwise verify the pair unpinned in silence.
  refuseUnknownOptions("verifyFiles", options, VERIFY_FILES_OPTION_KEYS);
  pathOption("manifest", options.manifest);
  optionalPathOption("export", options.export);
  flagOption("refuseAllowlisted", options.refuseAllowlisted);
  checkReadingOptions(options);
  // A read size that is not a size would make every read fail: a caller's mistake, not an unreadable file.
  if (options.chunkBytes !== undefined && !(Number.isSafeInteger(options.chunkBytes) && options.chunkBytes >= 1 && options.chunkBytes <= MAX_CHUNK_BYTES)) {
    throw new UsageError(`chunkBytes must be a whole number of bytes from 1 to ${MAX_CHUNK_BYTES}`);
  }
  const pinName = options.pinName ?? "expectManifestSha256";
  const pin = pinOption(options, "expectManifestSha256", pinName);
  const base = options.cwd ?? process.cwd();
  const manifestPath = resolve(base, options.manifest);
  const exportPath = options.export == null ? null : resolve(base, options.export);
  // A pair laid out as ingest writes it is read fast; any other is read again by the strict grammar.
  const total = await filesBytes([manifestPath, exportPath]);
  const shares = reader === "canonical" ? (other === undefined ? secondShare(total) : other) : null;
  // The caller's own throw is the caller's: the readers would report it as an unreadable file.
  const progress = guardedCallback(options.onProgress);
  const newReading = progressOf(progress.call, total);
  const { chunkBytes } = options;
  const fast = reader === "canonical" ? await streamPair(manifestPath, exportPath, { reader, chunkBytes, onChunk: newReading(), hashExport }, shares) : "exact";
  if (fast === "exact" && reader === "canonical") options.onStrictRead?.(total);
  const streamed =
    fast === "exact" ? await streamPair(manifestPath, exportPath, { reader: "exact", chunkBytes, onChunk: newReading(), hashExport: true }) : fast;
  // The strict reader never answers "exact"; were it to, the whole documents are the safe reading.
  const mode: VerifyMode = typeof streamed === "string" ? "whole" : "streamed";
  const reading = typeof streamed === "string" ? await readWhole(manifestPath, exportPath) : streamed;
  const manifestSha = reading.manifestSha256;
  const swapped = reading.readProblems.length === 0 ? swappedDocuments(reading.manifestHead, reading.exportHead, exportPath !== null, FILE_WORDING) : null;
  // Files given the wrong way round verify nothing: the one problem says what to fix.
  const readable = reading.readProblems.length === 0 && swapped === null;
  const problems: VerifyProblem[] = swapped === null ? [...reading.readProblems] : [swapped];
  if (swapped === null && manifestSha !== null && pin !== null && pin !== manifestSha) {
    problems.push({ code: "manifest_sha256", message: `manifest sha256 does not match ${pinName}` });
  }
  if (readable) appendAll(problems, reading.problems);
  const allowlisted = readable ? allowlistedAdmissions(reading.manifestHead) : 0;
  refuseAllowlisted(options.refuseAllowlisted, allowlisted, problems);
  progress.rethrow();
  const result = {
    consistent: problems.length === 0,
    readable,
    manifestSha256: manifestSha,
    pinned: pin !== null,
    exportChecked: exportPath !== null && readable,
    allowlisted,
    problems,
    notes: readable ? notesOf(reading.manifestHead) : [],
  };
  const documents = { manifestHead: swapped === null ? reading.manifestHead : null, exportSha256: readable ? reading.exportSha256 : null };
  return { result, mode, reader: fast === "exact" ? "exact" : "canonical", documents, cleanPairs: reading.cleanPairs };
}

/** Bytes of the files (0 for one that cannot be stat'ed: its read reports it). */
export async function filesBytes(paths: ReadonlyArray<string | null>): Promise<number> {
  let bytes = 0;
  for (const path of paths) {
    if (path === null) continue;
    bytes += await stat(path).then(
      (stats) => stats.size,
      () => 0,
    );
  }
  return bytes;
}

/**
 * Where a canonical read checks its second share of the records: on a worker thread when the
 * pair is large, a second core is there and the compiled worker script is present (it is not
 * under a TypeScript test runner); else null, and one thread checks them all.
 */
function secondShare(bytes: number): OtherShare | null {
  return twoThreadsFor(bytes) ? { url: PAIR_WORKER_URL, block: SHARE_BLOCK } : null;
}

/** A new counter of one reading's bytes for each reading, told to `onProgress` (nothing without one). */
function progressOf(onProgress: VerifyFilesOptions["onProgress"], total: number): () => ((bytes: number) => void) | undefined {
  return () => {
    if (onProgress === undefined) return undefined;
    let read = 0;
    return (bytes) => {
      read += bytes;
      onProgress(read, total);
    };
  };
}

/**
 * The most bytes of a pair read whole, both documents together, and JSON values built of each.
 * Held whole, a document takes about four times its bytes in memory (a pair of 30 MB peaked at
 * 252 MB, one of 90 MB at 493 MB) and a value about 100 bytes (a manifest of 2,000,000 `{}`
 * records peaked at 488 MB; 500,000 values in each document, 282 MB). The values are split by
 * what a genuine pair holds: a manifest record has about 100 values and an export record about
 * 10, so 400,000 and 100,000 read a genuine run of some 4,000 records whole (a moved export record
 * there is reported as `export_order`, not refused), and a hostile pair of either shape stays near
 * 200 MB. These keep the CLI's verify within 256 MB for a pair of any layout (docs/ingest.md,
 * "Verify memory"). Ingest never writes a pair that needs the whole read, so only a pair edited
 * or written by another tool meets these caps, and a larger one is refused as unreadable (exit 3),
 * saying why.
 */
const WHOLE_PAIR_BYTES = 24 << 20;
const WHOLE_MANIFEST_VALUES = 400_000;
const WHOLE_EXPORT_VALUES = 100_000;
/** Why a pair is read whole, which a refusal by these caps says. */
const WHOLE_READ_WHY =
  "the most verify reads whole: the pair is not laid out as ingest writes it (export records out of index order, or manifest members after its records), which only the whole documents can check";

/**
 * The pair read whole (within WHOLE_PAIR_BYTES, WHOLE_MANIFEST_VALUES and WHOLE_EXPORT_VALUES) and fed to the
 * verifier from memory: for a pair whose layout only the whole lists can judge.
 */
async function readWhole(manifestPath: string, exportPath: string | null): Promise<PairReading> {
  const readProblems: VerifyProblem[] = [];
  // Over the bytes, the larger document is named unreadable (one that cannot be stat'ed counts 0:
  // its read says why) and neither is read; within them each is read, even when the other is not.
  const [manifestBytes, exportBytes] = [await filesBytes([manifestPath]), await filesBytes([exportPath])];
  const over = manifestBytes + exportBytes <= WHOLE_PAIR_BYTES ? null : manifestBytes >= exportBytes ? "manifest" : "export";
  if (over !== null) {
    const [path, bytes] = over === "manifest" ? [manifestPath, manifestBytes] : [exportPath as string, exportBytes];
    const why = `the pair is ${manifestBytes + exportBytes} bytes, this file ${bytes} of them, and ${WHOLE_PAIR_BYTES} bytes of pair are ${WHOLE_READ_WHY}`;
    readProblems.push({
      code: over === "manifest" ? "manifest_unreadable" : "export_unreadable",
      message: `cannot read ${over} ${displayText(path)} (${why})`,
    });
  }
  const cap = (maxValues: number): ValueCap => ({ maxValues, why: `, ${WHOLE_READ_WHY}` });
  const manifest = over === null ? await readOrProblem(manifestPath, "manifest", readProblems, cap(WHOLE_MANIFEST_VALUES)) : null;
  const exported = exportPath === null || over !== null ? null : await readOrProblem(exportPath, "export", readProblems, cap(WHOLE_EXPORT_VALUES));
  const reading = {
    readProblems,
    manifestSha256: manifest?.sha256 ?? null,
    exportSha256: exported?.sha256 ?? null,
    manifestHead: headOf(manifest?.value),
    exportHead: headOf(exported?.value),
    problems: [],
    cleanPairs: 0,
  };
  if (readProblems.length > 0 || manifest === null) return reading;
  try {
    return { ...reading, problems: verifyHeld(exported === null ? NO_EXPORT : exported.value, manifest.value, manifest.sha256) };
  } catch (error) {
    // Values from the strict reader never throw when read; kept so that verifyFiles never throws.
    return { ...reading, problems: [failureProblem(error)] };
  }
}
