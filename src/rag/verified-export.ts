// The admitted records of a published pair for the RAG adapters, read from the very bytes that
// were verified: `verifyFiles` checks the pair on disk, both files are then read once, the pin is
// checked again on those bytes and `verifyExport` runs on them, so a file replaced in between is
// refused. Anything wrong throws: all the admitted records, each once and in order, or none.
// Each comes with its provenance under flat top-level keys (`little_canary_<field>`) that never
// mix with the record's own, never one nested object: LlamaIndex renders each metadata value as
// text and LangChain's `index()` leaves nested keys out of the hash it dedupes by.
import { GENERATED_ID_PREFIX, isReservedId, isReservedMetadataKey, PROVENANCE_KEY, PROVENANCE_PREFIX } from "../documents/reserved-labels.js";
import { MAX_DOCUMENT_BYTES, parseJsonDocument, readFailureMessage } from "../core/read-document.js";
import { readSmallFile } from "../core/read-at-most.js";
import { resolve } from "node:path";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { readStrictDocument } from "../core/strict-document.js";
import type { IngestExport } from "../documents/schemas.js";
import type { VerifyProblem } from "../verify/problems.js";
import { verifyExport } from "../verify/verify-export.js";
import { normalizePin } from "../verify/option-checks.js";
import { verifyFiles } from "../verify/verify-files.js";
import { displayText } from "../core/display-text.js";
import { isPlainObject, refuseUnknownOptions } from "../core/guards.js";

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
  /**
   * Refuse the pair when any record was admitted by an ingest allowlist (something was detected
   * in it and a person let it through): for indexes that take only records nothing was detected
   * in, as `verify --no-allowlisted`. Default false.
   */
  readonly refuseAllowlisted?: boolean;
}

/** Every option of VerifiedExportOptions; `satisfies` keeps the list equal to the interface. */
const VERIFIED_EXPORT_OPTION_KEYS: readonly string[] = Object.keys({
  manifest: true,
  export: true,
  expectManifestSha256: true,
  allowUnpinned: true,
  cwd: true,
  refuseAllowlisted: true,
} satisfies Record<keyof VerifiedExportOptions, true>);

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

export { PROVENANCE_KEY, PROVENANCE_PREFIX };

/** Where a loaded document came from. */
export interface Provenance {
  /** The record's index in the manifest. */
  readonly index: number;
  readonly id: string | null;
  readonly source: string | null;
  /** SHA-256 of the text. */
  readonly sha256: string;
  /** SHA-256 of the record's text, id, source and metadata together. */
  readonly material_sha256: string;
  /** SHA-256 of the manifest the record was verified against. */
  readonly manifest_sha256: string;
}

/**
 * The generated id of a record without one, less its index: `little-canary:` for a pair, and
 * `little-canary:K/N:` for shard K of N, since every shard counts its records from 0 and the
 * shards of one run are loaded into one store. `manifest` is the verified manifest's value.
 */
function generatedIdPrefix(manifest: unknown): string {
  const run = isPlainObject(manifest) ? manifest["run"] : undefined;
  const shard = isPlainObject(run) ? run["shard"] : undefined;
  return isPlainObject(shard) && Number.isSafeInteger(shard["k"]) && Number.isSafeInteger(shard["n"])
    ? `${GENERATED_ID_PREFIX}${String(shard["k"])}/${String(shard["n"])}:`
    : GENERATED_ID_PREFIX;
}

/** One admitted record as both adapters build their documents from it. */
export interface AdmittedDocument {
  readonly text: string;
  /** The record's id, or for a record without one `little-canary:<index>` (`little-canary:K/N:<index>` in shard K of N). */
  readonly id: string;
  /** The record's string metadata plus the flat provenance entries. */
  readonly metadata: Record<string, string | number>;
  /** The provenance keys in `metadata` (LlamaIndex hides them from the model and the embedder). */
  readonly provenanceKeys: readonly string[];
}

function refused(problems: readonly VerifyProblem[]): ExportVerificationError {
  const shown = problems.slice(0, 5).map((problem) => `${problem.code}: ${problem.message}`);
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : "";
  return new ExportVerificationError(`the export did not verify (${shown.join("; ")}${more})`, problems);
}

/**
 * The bytes of one file of the pair, read once into memory, never more than MAX_DOCUMENT_BYTES:
 * the size is checked before anything is read (a padded export verifies with `verify`, which
 * streams, but must not be pulled whole into memory here), and a file that grows past the limit
 * meanwhile is refused by the bytes read.
 */
async function readBytes(path: string, label: string): Promise<Uint8Array> {
  const tooLarge = `larger than ${MAX_DOCUMENT_BYTES} bytes, the most the RAG loaders hold in memory (verify it with verifyFiles, which streams, and read its records as they come)`;
  const read = await readSmallFile(path, MAX_DOCUMENT_BYTES, (stats) => (stats.size > MAX_DOCUMENT_BYTES ? tooLarge : null));
  if ("bytes" in read && read.bytes.length <= MAX_DOCUMENT_BYTES) return read.bytes;
  const unreadable = "unreadable" in read ? (read.unreadable === "not_found" ? "file not found" : read.unreadable) : null;
  const why = "problem" in read ? `: ${read.problem}` : unreadable !== null ? ` (${unreadable})` : `: ${tooLarge}`;
  throw new LittleCanaryError("io", `cannot read the ${label} ${displayText(path)}${why}`);
}

/**
 * The loader of an adapter: refuses options without a pin or `allowUnpinned: true` at once (the
 * mistake shows where it is made), then each call verifies the pair and returns every admitted
 * record once, in order, with its provenance; throws ExportVerificationError, UsageError or `io`.
 */
export function admittedLoader(given: VerifiedExportOptions, where: string): () => Promise<AdmittedDocument[]> {
  // A misspelt pin (`expectManifestSHA256`) beside `allowUnpinned` would otherwise load unpinned.
  refuseUnknownOptions(where, given, VERIFIED_EXPORT_OPTION_KEYS);
  if (given.expectManifestSha256 == null && given.allowUnpinned !== true) {
    throw new UsageError("expectManifestSha256 is required: pin the manifest's SHA-256 (or pass allowUnpinned: true to check consistency only)");
  }
  for (const key of ["manifest", "export"] as const) {
    if (typeof given[key] !== "string" || given[key] === "") throw new UsageError(`${where} option ${key} must be the path of the pair's ${key} file`);
  }
  if (given.cwd !== undefined && typeof given.cwd !== "string") throw new UsageError(`${where} option cwd must be a directory path`);
  if (given.refuseAllowlisted !== undefined && typeof given.refuseAllowlisted !== "boolean")
    throw new UsageError(`${where} option refuseAllowlisted must be true or false`);
  // The pin is checked here too, so an empty or malformed one (an unset variable) is refused where it is given.
  const pin = given.expectManifestSha256 == null ? null : normalizePin(given.expectManifestSha256, "expectManifestSha256");
  const options = { ...given };
  return async () => {
    const cwd = options.cwd ?? process.cwd();
    const manifestPath = resolve(cwd, options.manifest);
    const exportPath = resolve(cwd, options.export);
    const refuseAllowlisted = options.refuseAllowlisted === true;
    const checked = await verifyFiles({ manifest: manifestPath, export: exportPath, expectManifestSha256: pin, refuseAllowlisted });
    if (!checked.consistent) throw refused(checked.problems);
    // Read once; everything below is about these bytes.
    const manifestBytes = await readBytes(manifestPath, "manifest");
    const exportBytes = await readBytes(exportPath, "export");
    const manifestSha256 = sha256Hex(manifestBytes);
    if (manifestSha256 !== checked.manifestSha256 || (pin !== null && manifestSha256 !== pin)) {
      throw refused([{ code: "manifest_sha256", message: "the manifest changed after it was verified" }]);
    }
    // The manifest parsed once, as verifyExport parses bytes: it is checked, and it names the shard.
    let manifest: unknown;
    try {
      manifest = parseJsonDocument(manifestBytes, "manifest").value;
    } catch (error) {
      throw refused([{ code: "manifest_unreadable", message: readFailureMessage(error, "manifest") }]);
    }
    const problems = verifyExport(exportBytes, manifest, { manifestBytes, refuseAllowlisted });
    if (problems.length > 0) throw refused(problems);
    const read = readStrictDocument(exportBytes);
    if (!read.ok) throw refused([{ code: "export_unreadable", message: "the export could not be read again" }]);
    const records = (read.value as IngestExport).records;
    // A record key that is reserved would be overwritten by the provenance or taken for it. The
    // pair is sound, but this loader cannot hand it on as it is: a refusal of the export (code
    // `verification`, every such record listed), since a caller's option is not at fault.
    const reserved = records.flatMap((record): VerifyProblem[] => [
      ...(Object.keys(record.metadata).some(isReservedMetadataKey)
        ? [
            {
              code: "reserved_metadata_key" as const,
              message: `record ${record.index} has a metadata key "${PROVENANCE_KEY}" or one starting "${PROVENANCE_PREFIX}", which the adapters reserve for provenance`,
            },
          ]
        : []),
      ...(isReservedId(record.id)
        ? [
            {
              code: "reserved_id" as const,
              message: `record ${record.index} has an id starting "${GENERATED_ID_PREFIX}" (in any case or width), which the adapters reserve for records without an id`,
            },
          ]
        : []),
    ]);
    if (reserved.length > 0) throw refused(reserved);
    const generated = generatedIdPrefix(manifest);
    return records.map((record) => {
      const { index, id, source, sha256, material_sha256 } = record;
      const provenance: Provenance = { index, id, source, sha256, material_sha256, manifest_sha256: manifestSha256 };
      // A null id or source is left out.
      const flat = Object.fromEntries(Object.entries(provenance).flatMap(([key, value]) => (value === null ? [] : [[`${PROVENANCE_PREFIX}${key}`, value]])));
      return { text: record.text, id: id ?? `${generated}${index}`, metadata: { ...record.metadata, ...flat }, provenanceKeys: Object.keys(flat) };
    });
  };
}
