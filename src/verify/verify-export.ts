// `verifyExport` (docs/ingest.md, "Pinning and verifying"): is an export consistent with the manifest it names, and
// does the manifest's own evidence support admitting every exported record? Returns the
// problem list ([] = consistent) and never throws: wrong types, huge numbers, deep nesting
// and non-object items all become problems. Problems name indices only.
//
// This checks consistency, not authenticity: whoever can write both files can forge a pair.
// Pin the manifest's SHA-256 out of band to get authenticity.
//
// Stricter than the Python package on purpose: a manifest must also match its zod schema
// (`manifest_invalid`), and every manifest record must be recomputable from its segments
// (manifest-checks.ts). A hand-forged pair that is consistent but off-schema is refused.
//
// Either document may be passed as the bytes that were read (a Uint8Array): they are then
// parsed by the strict document reader (read-document.ts), which refuses duplicate keys at any
// depth. An already parsed value cannot show them (`JSON.parse` keeps the last `text` of two),
// which is why the file-based `verifyFiles` (verify-files.ts) is the easy path.
import { classifySegmentVerdict } from "../documents/classify.js";
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { isStringMap } from "../documents/metadata-map.js";
import { EXPORT_SCHEMA, IngestExportSchema, IngestManifestSchema, MANIFEST_SCHEMA } from "../documents/schemas.js";
import { sortByCodePoint } from "../core/code-point-order.js";
import { metadataMaterial } from "../documents/segment-material.js";
import { sliceSpans } from "../documents/segment-plan.js";
import { segmentCount, segmentSpans } from "../documents/segment-spans.js";
import { codePointLength } from "../core/codepoints.js";
import { isInt, isObj, isWellFormedString, own, planGeometry, sameKeySet, type Obj } from "./_values.js";
import { checkCounts, checkManifestRecords, checkRunAndContext } from "./manifest-checks.js";
import { failureProblem, ProblemList, type VerifyProblem } from "./problems.js";
import { parseJsonDocument, type DocumentLabel } from "../core/read-document.js";
import { LittleCanaryError } from "../core/errors.js";
import { allowlistedAdmissions, allowlistedProblem } from "./allowlisted.js";

/** Options of `verifyExport` and `verifyManifestOnly`. */
export interface VerifyOptions {
  /**
   * The manifest file's bytes as read; they must be its canonical serialization. Not needed
   * when the manifest itself is passed as bytes.
   */
  readonly manifestBytes?: Uint8Array | string;
  /**
   * Treat a record admitted by an ingest allowlist (`admission_basis: "allowlist"`) as a problem
   * (`allowlisted_admission`), for consumers who accept only records nothing was detected in.
   */
  readonly refuseAllowlisted?: boolean;
}

/**
 * SHA-256 of the manifest file's bytes: `undefined` when no bytes were given (the file-bytes
 * check is skipped), null when the given bytes have no UTF-8 form (the check fails).
 */
export type ManifestFileSha = string | null | undefined;

const PASS_ONLY: ReadonlySet<string> = new Set(["pass"]);
const ALLOWLISTED_STATES: ReadonlySet<string> = new Set(["pass", "flag", "block"]);

const EXPORT_KEYS = ["schema", "manifest_schema", "manifest_sha256", "policy_name", "records"] as const;
const EXPORT_RECORD_KEYS = ["index", "id", "source", "sha256", "material_sha256", "metadata", "text"] as const;

/** SHA-256 of the manifest's canonical JSON, or null when it has no canonical form. */
export function canonicalSha(manifest: unknown): string | null {
  try {
    return sha256Hex(canonicalJsonUnchecked(manifest));
  } catch {
    return null;
  }
}

function bytesSha(bytes: unknown): string | null {
  try {
    if (bytes instanceof Uint8Array || typeof bytes === "string") return sha256Hex(bytes);
  } catch {
    // A string with a lone surrogate has no UTF-8 form.
  }
  return null;
}

/** Path of the first issue of the whole manifest against its schema, or null when it matches. */
function manifestIssuePath(manifest: Obj): readonly PropertyKey[] | null {
  const parsed = IngestManifestSchema.safeParse(manifest);
  return parsed.success ? null : (parsed.error.issues[0]?.path ?? []);
}

/** `manifest_invalid` for the manifest's first schema issue (`issuePath`), named by a safe path. */
function reportManifestSchema(manifest: Obj, issuePath: readonly PropertyKey[] | null, problems: ProblemList): void {
  if (own(manifest, "schema") !== MANIFEST_SCHEMA) return; // reported as a schema mismatch
  if (issuePath === null) return;
  const path = issuePath.map((p) => (typeof p === "number" ? `[${p}]` : typeof p === "string" && /^[a-z0-9_]{1,40}$/.test(p) ? `.${p}` : ".<key>")).join("");
  problems.add("manifest_invalid", `manifest does not match the ${MANIFEST_SCHEMA} schema (first problem at ${path || "(root)"})`);
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

/** The facts of a manifest held whole. */
export function factsOf(manifest: Obj): ManifestFacts {
  return { canonicalSha: canonicalSha(manifest), issuePath: manifestIssuePath(manifest) };
}

function checkManifestBytesOnly(computed: string | null, fileSha: ManifestFileSha, problems: ProblemList): void {
  if (fileSha === undefined) return;
  if (computed === null || fileSha !== computed) {
    problems.add("manifest_bytes", "manifest file bytes are not the canonical form of the manifest");
  }
}

/**
 * Step 13.5: the manifest record's own evidence for admission. Every segment exercised with a
 * verdict that classifies to its state: a pass, or (for an allow-listed admission, whose
 * entries the manifest checks vouch for) a pass, flag or block.
 */
function evidenceSupportsAdmission(record: Obj): boolean {
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
    const classified = classifySegmentVerdict(own(segment, "verdict"));
    return !("error" in classified) && classified.state === state && classified.exercised;
  });
}

/** Step 13.14: the plan rebuilt over the exported material equals the recorded segments. */
function segmentsCoverMaterial(record: Obj, text: string, material: string, geometry: { chars: number; overlap: number } | null): boolean {
  if (geometry === null) return false;
  const segments = own(record, "segments");
  if (!Array.isArray(segments)) return false;
  const textLength = codePointLength(text);
  const materialLength = codePointLength(material);
  if (own(record, "chars_total") !== textLength + materialLength) return false;
  const { chars, overlap } = geometry;
  // Compare counts before slicing so a hostile policy cannot make us build a huge plan.
  if (segmentCount(materialLength, chars, overlap) + segmentCount(textLength, chars, overlap) !== segments.length) {
    return false;
  }
  const expected: Array<{ kind: string; index: number; start: number; end: number; sha256: string }> = [];
  for (const [kind, source, length] of [
    ["metadata", material, materialLength],
    ["text", text, textLength],
  ] as const) {
    const spans = segmentSpans(length, chars, overlap);
    const slices = sliceSpans(source, spans);
    spans.forEach((span, index) => expected.push({ kind, index, ...span, sha256: sha256Hex(slices[index] as string) }));
  }
  return expected.every((e, i) => {
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

/** Step 13 for one export record (the one rule set, used by the whole-document and the streaming verifier). */
export function checkExportRecord(
  item: Obj,
  index: number,
  manifestRecord: Obj | undefined,
  geometry: { chars: number; overlap: number } | null,
  problems: ProblemList,
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
  if (!evidenceSupportsAdmission(m)) {
    problems.add("admission_unsupported", `${at}segment evidence does not support admission`);
  }
  const text = own(item, "text");
  if (!isWellFormedString(text)) {
    problems.add("text_invalid", `${at}text missing or invalid`);
    return;
  }
  const metadata = own(item, "metadata");
  if (!isStringMap(metadata) || !Object.keys(metadata).every((k) => k.isWellFormed() && (metadata[k] as string).isWellFormed())) {
    problems.add("metadata_invalid", `${at}metadata invalid`);
    return;
  }
  const sha = sha256Hex(text);
  if (own(item, "sha256") !== sha || own(m, "sha256") !== sha) problems.add("sha256_mismatch", `${at}sha256 mismatch`);
  if (own(m, "length") !== codePointLength(text)) problems.add("length_mismatch", `${at}length mismatch`);

  const id = own(item, "id");
  const source = own(item, "source");
  const labelsUsable = (id === null || isWellFormedString(id)) && (source === null || isWellFormedString(source));
  let materialSha: string | null = null;
  if (labelsUsable) {
    try {
      materialSha = sha256Hex(canonicalJsonUnchecked({ id, source, metadata, text }));
    } catch {
      materialSha = null;
    }
  }
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
  const material = labelsUsable ? metadataMaterial({ id: id as string | null, source: source as string | null, metadata }) : null;
  if (material === null || !segmentsCoverMaterial(m, text, material, geometry)) {
    problems.add("segment_coverage", `${at}segment evidence does not cover the exported material`);
  }
}

/**
 * Steps 2–9 of a pair: everything about the two documents except their record lists. The
 * manifest and export may be given without their `records` (the streaming verifier passes
 * them as `[]`), since no check here reads them.
 */
export function checkPairHead(ex: Obj, manifest: Obj, facts: ManifestFacts, fileShaOfManifest: ManifestFileSha, problems: ProblemList): void {
  // Steps 2–4.
  if (!sameKeySet(ex, EXPORT_KEYS)) problems.add("export_fields", "export has unexpected or missing top-level fields");
  if (own(ex, "schema") !== EXPORT_SCHEMA) problems.add("export_schema", "export schema mismatch");
  if (own(ex, "manifest_schema") !== MANIFEST_SCHEMA || own(manifest, "schema") !== MANIFEST_SCHEMA) {
    problems.add("manifest_schema", "manifest schema mismatch");
  }
  reportManifestSchema(manifest, facts.issuePath, problems);
  // Step 5.
  const computed = facts.canonicalSha;
  const claimed = own(ex, "manifest_sha256");
  if (computed === null || claimed !== computed) {
    problems.add("manifest_sha256", "manifest_sha256 does not match the manifest");
  }
  // Step 6: the file bytes must be exactly the canonical form the export names.
  if (fileShaOfManifest !== undefined) {
    const fileSha = fileShaOfManifest;
    if (fileSha === null || fileSha !== claimed || (computed !== null && fileSha !== computed)) {
      problems.add("manifest_bytes", "manifest_sha256 does not match the manifest file bytes");
    }
  }
  // Step 7.
  const policy = own(manifest, "policy");
  const policyName = own(ex, "policy_name");
  if (policyName !== "strict/v1" || !isObj(policy) || own(policy, "name") !== policyName) {
    problems.add("policy_name", "policy name mismatch");
  }
  // Steps 8–9.
  checkRunAndContext(manifest, problems);
  const run = own(manifest, "run");
  if (isObj(run) && own(run, "export_requested") !== true) {
    problems.add("export_not_requested", "manifest does not record that an export was requested");
  }
}

/** Step 16: the export's record count against the manifest's admitted count. */
export function checkAdmittedCount(manifest: Obj, exportCount: number, problems: ProblemList): void {
  const counts = own(manifest, "counts");
  if (!isObj(counts) || own(counts, "admitted") !== exportCount) {
    problems.add("admitted_count", "export record count does not match manifest admitted count");
  }
}

/** The message of the final whole-export schema check (a pair with no other problem). */
export const EXPORT_SCHEMA_PROBLEM = "export does not match the little-canary-ingest-export/v1 schema";

function verifyPair(exportDoc: unknown, manifestDoc: unknown, fileShaOfManifest: ManifestFileSha, problems: ProblemList): void {
  // Step 1.
  if (!isObj(exportDoc)) return problems.add("export_not_object", "export is not an object");
  if (!isObj(manifestDoc)) return problems.add("manifest_not_object", "manifest is not an object");
  const ex = exportDoc;
  const manifest = manifestDoc;
  checkPairHead(ex, manifest, factsOf(manifest), fileShaOfManifest, problems);
  // Steps 10–11.
  const view = checkManifestRecords(manifest, problems);
  // Step 12.
  const records = own(ex, "records");
  if (!Array.isArray(records)) return problems.add("export_records_missing", "export records missing");
  // Step 13.
  const geometry = planGeometry(own(manifest, "policy"));
  const admittedSet = new Set(view.admitted);
  const seen = new Set<number>();
  const order: number[] = [];
  let foreign = false;
  records.forEach((item: unknown, position) => {
    const index = isObj(item) ? own(item, "index") : undefined;
    if (!isObj(item) || !isInt(index)) {
      problems.add("export_record_malformed", `export record at position ${position}: malformed`);
      foreign = true;
      return;
    }
    if (seen.has(index)) {
      problems.add("record_duplicated", `record ${index}: duplicated in export`);
      foreign = true;
    }
    seen.add(index);
    order.push(index);
    if (!admittedSet.has(index)) foreign = true;
    checkExportRecord(item, index, view.byIndex.get(index), geometry, problems);
  });
  // Steps 14–16.
  const missing = view.admitted.filter((i) => !seen.has(i));
  if (missing.length > 0) problems.add("admitted_missing", admittedMissingMessage(missing));
  if (missing.length === 0 && !foreign && order.some((i, p) => i !== view.admitted[p])) {
    problems.add("export_order", "export records are not in manifest order");
  }
  checkAdmittedCount(manifest, records.length, problems);
  // Step 17.
  checkCounts(manifest, view.list, problems);
  // Belt and braces: a pair with no other problem must also match the export schema.
  if (problems.items.length === 0 && !IngestExportSchema.safeParse(ex).success) {
    problems.add("export_fields", EXPORT_SCHEMA_PROBLEM);
  }
}

/** Step 14's sentence: every admitted index missing from the export. */
export function admittedMissingMessage(missing: readonly number[]): string {
  return `admitted records missing from export: [${missing.join(", ")}]`;
}

/** The manifest-bytes hash an options object asks for (see ManifestFileSha). */
function fileShaFrom(options: VerifyOptions | undefined, manifestDoc: unknown): ManifestFileSha {
  const bytes = options?.manifestBytes ?? (manifestDoc instanceof Uint8Array || typeof manifestDoc === "string" ? manifestDoc : undefined);
  return bytes === undefined ? undefined : bytesSha(bytes);
}

/** A document passed as bytes is parsed strictly; a read failure becomes a `*_unreadable` problem. */
function documentValue(doc: unknown, label: DocumentLabel, problems: ProblemList): { value: unknown } | null {
  // A string is a document's text (a file read as UTF-8), never a parsed document: neither
  // document can be a JSON string, so reading it as text cannot hide a valid pair.
  const bytes = typeof doc === "string" ? new TextEncoder().encode(doc) : doc;
  if (!(bytes instanceof Uint8Array)) return { value: doc };
  try {
    return { value: parseJsonDocument(bytes, label).value };
  } catch (error) {
    // The reader's messages name the rule only, never content.
    const message = error instanceof LittleCanaryError && error.code === "io" ? error.message : `cannot read ${label}`;
    problems.add(label === "manifest" ? "manifest_unreadable" : "export_unreadable", message);
    return null;
  }
}

/** With `refuseAllowlisted`, the manifest's allow-listed admissions as one problem. */
function refuseAllowlistedIn(manifest: unknown, options: VerifyOptions, problems: ProblemList): void {
  if (options.refuseAllowlisted !== true) return;
  const problem = allowlistedProblem(allowlistedAdmissions(manifest));
  if (problem !== null) problems.items.push(problem);
}

/**
 * Problems of a pair already parsed by the strict document reader ([] = consistent), with the
 * manifest file's SHA-256 when its bytes were read. Never throws. For `verifyFiles`.
 */
export function verifyParsedPair(exportValue: unknown, manifestValue: unknown, manifestFileSha: ManifestFileSha): VerifyProblem[] {
  const problems = new ProblemList();
  try {
    verifyPair(exportValue, manifestValue, manifestFileSha, problems);
  } catch (error) {
    problems.items.push(failureProblem(error));
  }
  return problems.items;
}

/**
 * Problems that make an export inconsistent with its manifest ([] = consistent). Never throws.
 *
 * Pass each document as the bytes you read (a Uint8Array) when you can: bytes are parsed
 * strictly, so an export record with two `text` keys is refused (`export_unreadable`), where a
 * value from `JSON.parse` would silently keep the last one. Parsed values are still accepted
 * (the earlier call shape) and checked the same way otherwise. A string is taken as the
 * document's text (as `readFileSync(path, "utf8")` gives it) and parsed strictly too; bytes are
 * still better, because decoding to a string has already replaced any invalid UTF-8. With
 * `manifestBytes` (or a manifest passed as bytes or text), the manifest file must be
 * byte-for-byte its canonical form.
 * For files on disk, `verifyFiles` does all of this.
 */
export function verifyExport(exportDoc: unknown, manifestDoc: unknown, options: VerifyOptions = {}): VerifyProblem[] {
  const problems = new ProblemList();
  try {
    const exported = documentValue(exportDoc, "export", problems);
    const manifest = documentValue(manifestDoc, "manifest", problems);
    if (exported === null || manifest === null) return problems.items;
    verifyPair(exported.value, manifest.value, fileShaFrom(options, manifestDoc), problems);
    refuseAllowlistedIn(manifest.value, options, problems);
  } catch (error) {
    problems.items.push(failureProblem(error));
  }
  return problems.items;
}

/**
 * Problems of a manifest checked without its export (`verify --manifest M`): internal
 * consistency, plus `export_missing` when the manifest records that an export was produced.
 * The manifest may be passed as the bytes read (parsed strictly, as in `verifyExport`).
 */
export function verifyManifestOnly(manifestDoc: unknown, options: VerifyOptions = {}): VerifyProblem[] {
  const problems = new ProblemList();
  try {
    const manifest = documentValue(manifestDoc, "manifest", problems);
    if (manifest === null) return problems.items;
    checkManifestAlone(manifest.value, fileShaFrom(options, manifestDoc), problems);
    refuseAllowlistedIn(manifest.value, options, problems);
  } catch (error) {
    problems.items.push(failureProblem(error));
  }
  return problems.items;
}

/** `verifyManifestOnly` for a manifest already parsed strictly (for `verifyFiles`). Never throws. */
export function verifyParsedManifest(manifestValue: unknown, manifestFileSha: ManifestFileSha): VerifyProblem[] {
  const problems = new ProblemList();
  try {
    checkManifestAlone(manifestValue, manifestFileSha, problems);
  } catch (error) {
    problems.items.push(failureProblem(error));
  }
  return problems.items;
}

/** The manifest-alone checks before its record list (the streaming verifier shares them). */
export function checkManifestAloneHead(manifestDoc: Obj, facts: ManifestFacts, fileSha: ManifestFileSha, problems: ProblemList): void {
  if (own(manifestDoc, "schema") !== MANIFEST_SCHEMA) problems.add("manifest_schema", "manifest schema mismatch");
  reportManifestSchema(manifestDoc, facts.issuePath, problems);
  checkManifestBytesOnly(facts.canonicalSha, fileSha, problems);
  checkRunAndContext(manifestDoc, problems);
  const run = own(manifestDoc, "run");
  if (isObj(run) && own(run, "export_requested") === true) {
    problems.add("export_missing", "manifest records that an export was produced, but no export was given");
  }
}

function checkManifestAlone(manifestDoc: unknown, fileSha: ManifestFileSha, problems: ProblemList): void {
  if (!isObj(manifestDoc)) {
    problems.add("manifest_not_object", "manifest is not an object");
    return;
  }
  checkManifestAloneHead(manifestDoc, factsOf(manifestDoc), fileSha, problems);
  const view = checkManifestRecords(manifestDoc, problems);
  checkCounts(manifestDoc, view.list, problems);
}
