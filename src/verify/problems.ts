// Verification problems are data: a stable machine-readable `code` plus the human sentence.
// Sentences follow ingest.md §7 word for word where the spec gives them; they name record
// indices and positions only, never text, ids, sources or metadata.

export const VERIFY_PROBLEM_CODES = [
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
  "verify_failed",
] as const;

export type VerifyProblemCode = (typeof VERIFY_PROBLEM_CODES)[number];

export interface VerifyProblem {
  readonly code: VerifyProblemCode;
  readonly message: string;
}

/** Collects problems in order; shared by the check steps of one verification. */
export class ProblemList {
  readonly items: VerifyProblem[] = [];
  add(code: VerifyProblemCode, message: string): void {
    this.items.push({ code, message });
  }
  has(code: VerifyProblemCode): boolean {
    return this.items.some((p) => p.code === code);
  }
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
