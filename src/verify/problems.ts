// Verification problems are data: a stable machine-readable `code` plus the human sentence.
// Sentences are fixed (consumers and tests match them word for word); they name record
// indices and positions only, never text, ids, sources or metadata.
import { isInt, isObj, own } from "./_values.js";

/** Every verification problem code. */
export const VERIFY_PROBLEM_CODES = [
  "manifest_unreadable",
  "export_unreadable",
  "manifest_is_export",
  "export_is_manifest",
  "export_not_object",
  "manifest_not_object",
  "export_fields",
  "export_schema",
  "manifest_schema",
  "manifest_invalid",
  "manifest_sha256",
  "manifest_bytes",
  "policy_name",
  "run_incomplete",
  "export_not_requested",
  "export_missing",
  "context_unverified",
  "manifest_records_missing",
  "manifest_record_malformed",
  "manifest_record_index",
  "records_total",
  "record_state_mismatch",
  "segment_plan_mismatch",
  "export_records_missing",
  "export_record_malformed",
  "record_fields",
  "record_duplicated",
  "record_not_in_manifest",
  "record_not_admitted",
  "admission_unsupported",
  "text_invalid",
  "metadata_invalid",
  "sha256_mismatch",
  "length_mismatch",
  "material_sha256_mismatch",
  "provenance_mismatch",
  "label_type",
  "label_digest",
  "metadata_keys_mismatch",
  "segment_coverage",
  "admitted_missing",
  "export_order",
  "admitted_count",
  "counts_mismatch",
  "shard_invalid",
  "allowlist_unrecorded",
  "pipeline_inconsistent",
  "allowlisted_admission",
  "verify_failed",
  "problems_not_kept",
  "held_record_labels",
  // Only the RAG export loaders: a sound pair whose record uses a metadata key or an id they reserve.
  "reserved_metadata_key",
  "reserved_id",
] as const;

/** The stable code of a verification problem. */
export type VerifyProblemCode = (typeof VERIFY_PROBLEM_CODES)[number];

/** One verification problem: a stable code and a sentence that names positions, never text. */
export interface VerifyProblem {
  readonly code: VerifyProblemCode;
  readonly message: string;
}

/** The stable code of a verification note. */
export type VerifyNoteCode = "canary_disabled";

/**
 * A fact about a pair that is not a problem: a consistent pair stays consistent. `canary_disabled`:
 * the run turned the canary off by choice, so only the structural layer ran and nothing was admitted.
 */
export interface VerifyNote {
  readonly code: VerifyNoteCode;
  readonly message: string;
}

/**
 * Problems that mean nothing was verified: a file could not be read, or the manifest given is an
 * export. `verify` refuses such a run (exit 3) and prints these on stderr instead of a report.
 */
export const UNVERIFIABLE_PROBLEM_CODES: ReadonlySet<VerifyProblemCode> = new Set<VerifyProblemCode>([
  "manifest_unreadable",
  "export_unreadable",
  "manifest_is_export",
  "export_is_manifest",
]);

/**
 * Problems that make every later one a consequence: the export names another manifest, or a
 * document is not of the expected format. `verify` lists problems up to the first of these and
 * only counts the rest (see `problemsToShow`).
 */
export const STRUCTURAL_PROBLEM_CODES: ReadonlySet<VerifyProblemCode> = new Set<VerifyProblemCode>([
  ...UNVERIFIABLE_PROBLEM_CODES,
  "export_not_object",
  "manifest_not_object",
  "export_schema",
  "manifest_schema",
  "manifest_invalid",
  "manifest_sha256",
  "manifest_bytes",
]);

/** The message of `manifest_sha256` when the export names another manifest (a pin that does not match has its own). */
export const EXPORT_NAMES_ANOTHER_MANIFEST = "manifest_sha256 does not match the manifest";
/**
 * The message of `manifest_sha256` when the export names the manifest file's own bytes, which are
 * not the manifest's canonical form (the export was bound to a reformatted or edited manifest).
 */
export const EXPORT_NAMES_NONCANONICAL_BYTES = `${EXPORT_NAMES_ANOTHER_MANIFEST}: the export names the file's bytes, which are not the manifest's canonical form`;

/** How many problems `problemsToShow` lists when none is structural. */
export const DEFAULT_PROBLEMS_SHOWN = 20;

/** Mismatches of a document's shape: when one follows another, each names a different document. */
const SHAPE_PROBLEM_CODES: ReadonlySet<VerifyProblemCode> = new Set<VerifyProblemCode>([
  "export_not_object",
  "manifest_not_object",
  "export_schema",
  "manifest_schema",
]);

/**
 * The problems worth printing: up to the first structural one (a hash or schema mismatch, after
 * which the rest follow from it), with the shape mismatches right after a first shape mismatch
 * (the export's schema is checked before the manifest's, and a manifest that is not of its schema
 * must still be named), never more than `max`. `hidden` counts the ones left out.
 */
export function problemsToShow(problems: readonly VerifyProblem[], max: number = DEFAULT_PROBLEMS_SHOWN): { shown: VerifyProblem[]; hidden: number } {
  const isShape = (at: number) => SHAPE_PROBLEM_CODES.has((problems[at] as VerifyProblem).code);
  let structural = problems.findIndex((p) => STRUCTURAL_PROBLEM_CODES.has(p.code));
  if (structural !== -1 && isShape(structural)) while (structural + 1 < problems.length && isShape(structural + 1)) structural++;
  const end = Math.min(structural === -1 ? problems.length : structural + 1, Math.max(1, max));
  return { shown: problems.slice(0, end), hidden: problems.length - end };
}

/** Collects problems in order; shared by the check steps of one verification. */
export class ProblemList {
  readonly items: VerifyProblem[] = [];
  add(code: VerifyProblemCode, message: string): void {
    this.items.push({ code, message });
  }
  /** Appends `more` in order (one push each: a spread call overflows the stack past ~10^5 items). */
  addAll(more: readonly VerifyProblem[]): void {
    appendAll(this.items, more);
  }
}

/** Appends `more` to `into` in order, one push each: `into.push(...more)` overflows the stack for a long list. */
export function appendAll<T>(into: T[], more: readonly T[]): void {
  for (const item of more) into.push(item);
}

/**
 * Most problems kept of one document's records (per document, per verification): a pair damaged
 * throughout (records rotated by one, an export of ten million `{}`) finds several per record, and
 * keeping them all would take memory in proportion. The first ones, in record order, are kept; the
 * rest are counted (`problems_not_kept`).
 */
export const MAX_KEPT_RECORD_PROBLEMS = 10_000;

/**
 * Most indices the `admitted_missing` problem lists (and verify keeps): an export cut short at ten
 * million records would otherwise list, and hold, every one. The rest are counted in its sentence.
 */
export const MAX_LISTED_MISSING = 10_000;

/** The one problem that stands for `count` problems of `document`'s records found and not kept. */
export function problemsNotKept(document: "manifest" | "export", count: number): VerifyProblem {
  return {
    code: "problems_not_kept",
    message: `${count} more problem${count === 1 ? "" : "s"} in the ${document}'s records not kept (verify keeps the first ${MAX_KEPT_RECORD_PROBLEMS} of each document)`,
  };
}

/** The problem for an unexpected exception: only the error's class name, if it is plain. */
export function failureProblem(error: unknown): VerifyProblem {
  let name = "Error";
  try {
    const candidate = error instanceof Error ? error.name : undefined;
    if (typeof candidate === "string" && /^[A-Za-z]{1,40}$/.test(candidate)) name = candidate;
  } catch {
    // A hostile error object; keep the generic name.
  }
  return { code: "verify_failed", message: `verification failed (${name})` };
}

/**
 * `counts.allowlisted` of a manifest (its head or the whole document), or 0. Read from the counts,
 * which the recount ties to the records (else `counts_mismatch`), so streamed and held agree.
 */
export function allowlistedAdmissions(manifest: unknown): number {
  if (!isObj(manifest)) return 0;
  const counts = own(manifest, "counts");
  const n = isObj(counts) ? own(counts, "allowlisted") : undefined;
  return isInt(n) && n > 0 ? n : 0;
}

/**
 * When the caller refuses them (`verify --no-allowlisted`, `refuseAllowlisted`), `count`
 * allow-listed admissions become one problem (its words name neither: they are the same for both).
 */
export function refuseAllowlisted(refuse: boolean | undefined, count: number, problems: VerifyProblem[]): void {
  if (refuse !== true || count === 0) return;
  problems.push({
    code: "allowlisted_admission",
    message: `${count} record${count === 1 ? " was" : "s were"} admitted by an ingest allowlist, which this verification refuses`,
  });
}
