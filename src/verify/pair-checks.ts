// The rules of a published pair (docs/ingest.md, "Pinning and verifying"): is an export
// consistent with the manifest it names, and does the manifest's own evidence support admitting
// every exported record? Each check adds problems to a list and never throws for a value of any
// shape; problems name indices only, never content. This checks consistency, not authenticity:
// whoever can write both files can forge a pair (pin the manifest's SHA-256 out of band).
// Stricter than the Python package on purpose: a manifest must also match its zod schema
// (`manifest_invalid`), and every manifest record must be recomputable from its segments
// (manifest-checks.ts), so a hand-forged pair that is consistent but off-schema is refused.
import { classifySegmentVerdict } from "../documents/classify.js";
import { assertCanonicalValue, canonicalJsonUnchecked } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { isStringMap } from "../documents/metadata-map.js";
import { exportDigests, ExportText, textJsonOf, type ExportDigests } from "./export-digests.js";
import type { StringLeftAsBytes } from "../core/parse-line.js";
import { EXPORT_SCHEMA } from "../documents/schemas.js";
import { exportSchemaFor, manifestDocumentSchema, MANIFEST_SCHEMAS } from "../documents/manifest-v2.js";
import { sortByCodePoint } from "../core/code-point-order.js";
import { planSegments } from "../documents/segment-plan.js";
import type { MaterialSource } from "../documents/segment-material.js";
import { isInt, isObj, isWellFormedString, own, sameKeySet, type Obj } from "./_values.js";
import { segmentCount, type Geometry } from "../documents/segment-spans.js";
import { checkRunAndContext } from "./manifest-checks.js";
import { EXPORT_NAMES_ANOTHER_MANIFEST, EXPORT_NAMES_NONCANONICAL_BYTES, type ProblemList } from "./problems.js";

/**
 * SHA-256 of the manifest file's bytes: `undefined` when no bytes were given (the file-bytes
 * check is skipped), null when the given bytes have no UTF-8 form (the check fails).
 */
export type ManifestFileSha = string | null | undefined;

const PASS_ONLY: ReadonlySet<string> = new Set(["pass"]);
const ALLOWLISTED_STATES: ReadonlySet<string> = new Set(["pass", "flag", "block"]);

const EXPORT_KEYS = ["schema", "manifest_schema", "manifest_sha256", "policy_name", "records"] as const;
const EXPORT_RECORD_KEYS = ["index", "id", "source", "sha256", "material_sha256", "metadata", "text"] as const;

/** `manifest_invalid` for the manifest's first schema issue (`issuePath`), named by a safe path. */
function reportManifestSchema(manifest: Obj, issuePath: readonly PropertyKey[] | null, problems: ProblemList): void {
  const name = own(manifest, "schema");
  if (typeof name !== "string" || !MANIFEST_SCHEMAS.includes(name)) return; // reported as a schema mismatch
  if (issuePath === null) return;
  const path = issuePath.map((p) => (typeof p === "number" ? `[${p}]` : typeof p === "string" && /^[a-z0-9_]{1,40}$/.test(p) ? `.${p}` : ".<key>")).join("");
  problems.add("manifest_invalid", `manifest does not match the ${name} schema (first problem at ${path || "(root)"})`);
}

/**
 * What the head checks need to know about the whole manifest: the SHA-256 of its canonical
 * form (null when it has none) and the path of its first schema issue (null when it matches).
 * The whole-document verifier computes them from the manifest; the streaming one as it reads.
 */
export interface ManifestFacts {
  readonly canonicalSha: string | null;
  readonly issuePath: readonly PropertyKey[] | null;
}

/** The SHA-256 of a manifest's canonical form, or null when it has none (the digest checks then fail). */
export function canonicalShaOf(manifest: Obj): string | null {
  try {
    return sha256Hex(canonicalJsonUnchecked(manifest));
  } catch {
    return null;
  }
}

/**
 * The facts of a manifest held whole whose `records` is not an array (one with a records array
 * is checked record by record: the schema would list an issue for every bad record at once).
 */
export function factsOf(manifest: Obj): ManifestFacts {
  const parsed = manifestDocumentSchema(own(manifest, "schema")).safeParse(manifest);
  return { canonicalSha: canonicalShaOf(manifest), issuePath: parsed.success ? null : (parsed.error.issues[0]?.path ?? []) };
}

/**
 * Step 13.5: the manifest record's own evidence for admission. Every segment exercised with a
 * verdict that classifies to its state: a pass, or (for an allow-listed admission, whose
 * entries the manifest checks vouch for) a pass, flag or block. `verdictsAgree`: the manifest
 * check already re-classified every verdict to its recorded state and exercised flag.
 */
function evidenceSupportsAdmission(record: Obj, verdictsAgree: boolean): boolean {
  const states = own(record, "admission_basis") === "allowlist" ? ALLOWLISTED_STATES : PASS_ONLY;
  const segments = own(record, "segments");
  const total = own(record, "segments_total");
  const checked = own(record, "segments_checked");
  const covered = own(record, "chars_covered");
  const charsTotal = own(record, "chars_total");
  if (!Array.isArray(segments) || segments.length === 0) return false;
  if (!isInt(total) || !isInt(checked) || total !== segments.length || checked !== segments.length) return false;
  if (!isInt(covered) || !isInt(charsTotal) || covered !== charsTotal || charsTotal < 1) return false;
  return segments.every((segment) => {
    if (!isObj(segment) || own(segment, "exercised") !== true) return false;
    const state = own(segment, "state");
    if (typeof state !== "string" || !states.has(state)) return false;
    if (verdictsAgree) return true;
    const classified = classifySegmentVerdict(own(segment, "verdict"));
    return !("error" in classified) && classified.state === state && classified.exercised;
  });
}

/**
 * Step 13.14: the plan rebuilt over the exported record equals the recorded segments
 * (`text`: the SHA-256 and code-point length computed here of the exported text, which the plan reuses).
 */
function segmentsCoverMaterial(
  record: Obj,
  labels: MaterialSource,
  text: ExportText,
  geometry: Geometry | null,
  digest: { readonly sha256: string; readonly length: number },
): boolean {
  const segments = own(record, "segments");
  if (geometry === null || !Array.isArray(segments)) return false;
  // A plan of more segments than recorded is over budget, so it is never sliced: a hostile
  // policy cannot make us build a huge plan.
  const policy = { segment_chars: geometry.chars, segment_overlap: geometry.overlap, max_segments: segments.length, max_item_bytes: Number.POSITIVE_INFINITY };
  // A text of one segment is not read by the plan (its digest and length are given): one left as
  // bytes is decoded only when it is sliced.
  const sliced = segmentCount(digest.length, geometry.chars, geometry.overlap) > 1;
  const exported = { ...labels, text: sliced || !text.leftAsBytes ? text.string : "" };
  const plan = planSegments(exported, policy, { textSha256: digest.sha256, textLength: digest.length });
  if (own(record, "chars_total") !== plan.chars_total || plan.segments_total !== segments.length) return false;
  return plan.segments.every((e, i) => {
    const s: unknown = segments[i];
    return (
      isObj(s) &&
      own(s, "kind") === e.kind &&
      own(s, "index") === e.index &&
      own(s, "start") === e.start &&
      own(s, "end") === e.end &&
      own(s, "sha256") === e.sha256
    );
  });
}

/** An admitted record detected nothing, unless the allowlist admitted what it detected. */
function detectionAllowsAdmission(m: Obj): boolean {
  const detection = own(m, "detection");
  return own(m, "admission_basis") === "allowlist" ? detection === "block" || detection === "flag" : detection === "none";
}

/**
 * Step 13 for one export record. `verdictsAgree`: the manifest check found the record's verdicts
 * re-classify as recorded (ManifestRecordCheck), so they are not classified again.
 * `canonicalBytes`: the record's bytes, when the fast reader proved them `JSON.stringify(item)`
 * (its digests are then hashed from them: export-digests.ts); `left`: its text, when the fast
 * reader left it as bytes (`item.text` is then `""`).
 */
export function checkExportRecord(
  item: Obj,
  index: number,
  manifestRecord: Obj | undefined,
  geometry: Geometry | null,
  problems: ProblemList,
  verdictsAgree = false,
  canonicalBytes?: Buffer,
  left?: StringLeftAsBytes,
): void {
  const at = `record ${index}: `;
  if (!sameKeySet(item, EXPORT_RECORD_KEYS)) problems.add("record_fields", `${at}unexpected or missing fields`);
  if (manifestRecord === undefined) {
    problems.add("record_not_in_manifest", `${at}not in manifest`);
    return;
  }
  const m = manifestRecord;
  const reasons = own(m, "hold_reasons");
  if (
    own(m, "admission") !== "admitted" ||
    !Array.isArray(reasons) ||
    reasons.length !== 0 ||
    own(m, "coverage") !== "complete" ||
    !detectionAllowsAdmission(m)
  ) {
    problems.add("record_not_admitted", `${at}not admitted in manifest`);
  }
  if (!evidenceSupportsAdmission(m, verdictsAgree)) problems.add("admission_unsupported", `${at}segment evidence does not support admission`);
  const field = own(item, "text");
  const text =
    left !== undefined
      ? ExportText.left(left)
      : typeof field === "string"
        ? ExportText.of(field, canonicalBytes === undefined ? null : textJsonOf(item, canonicalBytes))
        : null;
  const length = text?.length ?? null;
  if (text === null || length === null) {
    problems.add("text_invalid", `${at}text missing or invalid`);
    return;
  }
  const metadata = own(item, "metadata");
  if (!isStringMap(metadata) || !Object.keys(metadata).every((k) => k.isWellFormed() && (metadata[k] as string).isWellFormed())) {
    problems.add("metadata_invalid", `${at}metadata invalid`);
    return;
  }
  const id = own(item, "id");
  const source = own(item, "source");
  const labelsUsable = (id === null || isWellFormedString(id)) && (source === null || isWellFormedString(source));
  let digests: ExportDigests | null = null;
  try {
    // The labels and text are well-formed strings (or null) here: with metadata of canonical form, so is the material.
    if (labelsUsable) {
      assertCanonicalValue(metadata);
      digests = exportDigests({ id: id as string | null, source: source as string | null, metadata }, text);
    }
  } catch {
    // No canonical form: a material mismatch.
  }
  const sha = digests?.text ?? sha256Hex(text.string);
  if (own(item, "sha256") !== sha || own(m, "sha256") !== sha) problems.add("sha256_mismatch", `${at}sha256 mismatch`);
  if (own(m, "length") !== length) problems.add("length_mismatch", `${at}length mismatch`);
  const materialSha = digests?.material ?? null;
  if (materialSha === null || own(item, "material_sha256") !== materialSha || own(m, "material_sha256") !== materialSha) {
    problems.add("material_sha256_mismatch", `${at}material_sha256 mismatch`);
  }
  if (id !== own(m, "id") || source !== own(m, "source")) problems.add("provenance_mismatch", `${at}provenance mismatch`);
  for (const [name, value] of [
    ["id", id],
    ["source", source],
  ] as const) {
    const recorded = own(m, name);
    const okType = (v: unknown) => v === null || typeof v === "string";
    if (!okType(value) || !okType(recorded)) {
      problems.add("label_type", `${at}${name} must be a string or null`);
      continue;
    }
    const digest = value === null ? null : isWellFormedString(value) ? sha256Hex(value) : undefined;
    if (own(m, `${name}_sha256`) !== digest) problems.add("label_digest", `${at}${name} digest mismatch`);
  }
  const keys = sortByCodePoint(Object.keys(metadata));
  const recordedKeys = own(m, "metadata_keys");
  if (
    !Array.isArray(recordedKeys) ||
    recordedKeys.length !== keys.length ||
    !keys.every((k, i) => recordedKeys[i] === k) ||
    own(m, "metadata_key_count") !== keys.length
  ) {
    problems.add("metadata_keys_mismatch", `${at}metadata keys mismatch`);
  }
  if (
    !labelsUsable ||
    !segmentsCoverMaterial(m, { id: id as string | null, source: source as string | null, metadata }, text, geometry, { sha256: sha, length })
  ) {
    problems.add("segment_coverage", `${at}segment evidence does not cover the exported material`);
  }
}

/**
 * Steps 2–9: everything about the two documents except their record lists (`ex` null: the
 * manifest is checked without an export). The documents may be given without their `records`
 * (the streaming verifier passes them as `[]`), since no check here reads them.
 */
export function checkHead(ex: Obj | null, manifest: Obj, facts: ManifestFacts, fileSha: ManifestFileSha, problems: ProblemList): void {
  // Steps 2–4.
  if (ex !== null && !sameKeySet(ex, EXPORT_KEYS)) problems.add("export_fields", "export has unexpected or missing top-level fields");
  // Each manifest version has its own export schema; a manifest of an unknown version is held to v1's.
  const manifestSchema = own(manifest, "schema");
  const known = typeof manifestSchema === "string" && MANIFEST_SCHEMAS.includes(manifestSchema);
  if (ex !== null && own(ex, "schema") !== (exportSchemaFor(manifestSchema) ?? EXPORT_SCHEMA)) problems.add("export_schema", "export schema mismatch");
  if ((ex !== null && own(ex, "manifest_schema") !== manifestSchema) || !known) {
    problems.add("manifest_schema", "manifest schema mismatch");
  }
  reportManifestSchema(manifest, facts.issuePath, problems);
  const computed = facts.canonicalSha;
  // Step 5, with an export: it must name the manifest's canonical form.
  if (ex !== null && (computed === null || own(ex, "manifest_sha256") !== computed)) {
    // Bound to this file's own bytes, not to its canonical form: the file was reformatted or edited.
    const namesTheBytes = typeof fileSha === "string" && own(ex, "manifest_sha256") === fileSha;
    problems.add("manifest_sha256", namesTheBytes ? EXPORT_NAMES_NONCANONICAL_BYTES : EXPORT_NAMES_ANOTHER_MANIFEST);
  }
  // Step 6: the file bytes must be exactly that canonical form. With step 5 this binds the export
  // to the file's bytes; a canonical manifest beside another run's export fails step 5 alone.
  if (fileSha !== undefined && (fileSha === null || computed === null || fileSha !== computed)) {
    problems.add("manifest_bytes", "manifest file bytes are not the canonical form of the manifest");
  }
  if (ex !== null) {
    // Step 7.
    const policy = own(manifest, "policy");
    const policyName = own(ex, "policy_name");
    if (policyName !== "strict/v1" || !isObj(policy) || own(policy, "name") !== policyName) problems.add("policy_name", "policy name mismatch");
  }
  // Steps 8–9.
  checkRunAndContext(manifest, problems);
  const run = own(manifest, "run");
  const requested = isObj(run) ? own(run, "export_requested") : undefined;
  if (ex !== null && isObj(run) && requested !== true) problems.add("export_not_requested", "manifest does not record that an export was requested");
  if (ex === null && requested === true) problems.add("export_missing", "manifest records that an export was produced, but no export was given");
}

/** Step 16: the export's record count against the manifest's admitted count. */
export function checkAdmittedCount(manifest: Obj, exportCount: number, problems: ProblemList): void {
  const counts = own(manifest, "counts");
  if (!isObj(counts) || own(counts, "admitted") !== exportCount) problems.add("admitted_count", "export record count does not match manifest admitted count");
}
