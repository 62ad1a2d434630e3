// The one verifier: the state it keeps while the manifest's and the export's `records` go by one
// element at a time (fed by stream-pair.ts from the files, or by `verifyHeld` from memory), and
// the assembly of the problems in check order. The rules are in pair-checks.ts and
// manifest-checks.ts; this keeps only what they need over the whole lists: the manifest's
// canonical SHA-256, its first schema issue, the recount (one 33-character entry per distinct
// `id_sha256`), the admitted indices missing from the export (and, held, the exported indices).
import { createHash, type Hash } from "node:crypto";
import { assertCanonicalValue, canonicalJsonUnchecked, canonicalObjectFrame } from "../core/canonical.js";
import { RecordCounter } from "../documents/counts.js";
import { IdDigestTally, type IdDigestOptions, type IdDigestState } from "./id-digests.js";
import { EXPORT_SCHEMA, ExportRecordSchema, type ManifestCounts } from "../documents/schemas.js";
import { z } from "zod";
import { exportDocumentSchema, isExportSchemaName, manifestDocumentSchema, manifestVersionNamed } from "../documents/manifest-v2.js";
import { isInt, isObj, own, planGeometry, recordBounds, type Obj, type RecordBounds } from "./_values.js";
import type { Geometry } from "../documents/segment-spans.js";
import {
  checkCitedEntries,
  checkManifestRecordAt,
  checkRecordsTotal,
  checkRecount,
  CitedAllowEntries,
  expandedRecord,
  type ManifestRecordCheck,
} from "./manifest-checks.js";
import { cleanRecordExpansion } from "./clean-record.js";
import { cleanPair } from "./clean-pair.js";
import { compileCheck } from "../core/schema-check.js";
import { SkippedValue } from "../core/parse-line.js";
import type { StringLeftAsBytes } from "../core/parse-line.js";
import { appendAll, MAX_KEPT_RECORD_PROBLEMS, MAX_LISTED_MISSING, ProblemList, problemsNotKept, type VerifyProblem } from "./problems.js";
import { canonicalShaOf, checkAdmittedCount, checkExportRecord, checkHead, factsOf, type ManifestFacts, type ManifestFileSha } from "./pair-checks.js";

/** The export record's schema as a compiled predicate (zod parses only a record it refuses). */
const EXPORT_RECORD_CHECK = compileCheck(ExportRecordSchema);
/**
 * The same check of a record whose text the fast reader left as bytes, `""` in its place: the
 * schema holds a text to be a non-empty string and nothing more (a test keeps it so), which a
 * text left as bytes is when it has a code point.
 */
export const EXPORT_RECORD_LEFT_TEXT_CHECK = compileCheck(ExportRecordSchema.extend({ text: z.literal("") }));

/** The key of the streamed arrays in both documents. */
export const RECORDS_KEY = "records";

/**
 * Whether a document's root is an object. The strict reader builds an export's root only when it
 * is one: any other root (an array, a string, null) arrives as a SkippedValue, which is not.
 */
function isDocumentObject(root: unknown): root is Obj {
  return isObj(root) && !(root instanceof SkippedValue);
}

/** A document's members other than `records` (null when it is not an object). */
export function headOf(root: unknown): Obj | null {
  if (!isDocumentObject(root)) return null;
  const { [RECORDS_KEY]: _records, ...head } = root;
  return head;
}

/** `{...rest, records: []}`: a document's head with its streamed list left empty. */
function withEmptyRecords(rest: Obj): Obj {
  return { ...rest, [RECORDS_KEY]: [] };
}

/**
 * The manifest's side: each record is checked as it arrives, hashed in canonical form, recounted
 * and dropped. A manifest held whole (`held`) is hashed by `verifyHeld` instead.
 */
export class StreamedManifest {
  readonly problems = new ProblemList();
  /** The position of the record each problem is about (to merge a share's problems in order). */
  private readonly positions: number[] = [];
  /** Problems of its records found past MAX_KEPT_RECORD_PROBLEMS. */
  private readonly kept: KeptProblems = { notKept: 0 };
  /** Records seen so far (the next record's position). */
  count = 0;
  /** False when the records array did not stream (it is missing or not an array). */
  streamed = false;
  /** The segment geometry of its policy, once the records start (null when unusable). */
  geometry: Geometry | null = null;
  /** What its head bounds each checked record by, once the records start (null when unusable). */
  private bounds: RecordBounds | null = null;
  private hash: Hash | null = createHash("sha256");
  private prefix: string | null = null;
  private recordIssue: readonly PropertyKey[] | null = null;
  // duplicate_ids is the one count that spans records: the tally takes each id digest and
  // gives the count at the end (the counter's own is then 0).
  private readonly idDigests: IdDigestTally;
  private readonly recount = new RecordCounter((digest) => {
    this.idDigests.add(digest);
    return false;
  });
  private recountable = true;
  /** Usable records whose verdicts re-classified as recorded (ManifestRecordCheck.verdictsAgree). */
  private readonly agreeing = new WeakSet<Obj>();
  /**
   * The first record of each version's shape (a v2 record has no `index`): the records stream
   * before the `schema` member that says which they must be, so the check waits for it.
   */
  private readonly firstOfShape: { v1: number | null; v2: number | null } = { v1: null, v2: null };
  /** The allowlist entries its records cite, for the allow file the run records. */
  private readonly cited = new CitedAllowEntries();
  /** Records read as clean pairs from their bytes (cleanPair), this share's and those absorbed. */
  cleanPairs = 0;

  /**
   * `held`: the records come from a manifest held whole (hashed by `verifyHeld`). `canonicalFile`:
   * the file's bytes were proved to be the canonical form of what is read (the canonical reader),
   * so the file's SHA-256 is the canonical one and nothing is serialized again to hash it.
   */
  constructor(
    private readonly held = false,
    private readonly canonicalFile = false,
    idDigests: IdDigestOptions = {},
  ) {
    this.idDigests = new IdDigestTally(idDigests);
  }

  /** The records array starts; `members` are the manifest's members before it in the file. */
  begin(members: Obj): void {
    this.streamed = true;
    this.geometry = planGeometry(members);
    this.bounds = recordBounds(members);
    if (this.held || this.canonicalFile) {
      this.hash = null;
      return;
    }
    try {
      assertCanonicalValue(members);
      this.prefix = canonicalObjectFrame(members, RECORDS_KEY).prefix;
      this.hash?.update(this.prefix, "utf8");
    } catch {
      this.hash = null;
    }
  }

  /** One record at its position: checked, hashed, counted; returns it when usable by index. */
  record(value: unknown, position: number): Obj | null {
    this.count = position + 1;
    // A v2 record is checked as the v1 record it stands for (its every fact); it is hashed as written.
    const compact = isObj(value) && !Object.hasOwn(value, "index");
    const shape = compact ? "v2" : "v1";
    this.firstOfShape[shape] ??= position;
    const { facts, usable, verdictsAgree, issuePath } = this.checked(value, compact, position);
    this.cited.add(facts);
    if (usable !== null && verdictsAgree) this.agreeing.add(usable);
    if (issuePath !== null && this.recordIssue === null) this.recordIssue = [RECORDS_KEY, position, ...issuePath];
    if (this.hash !== null) {
      try {
        const text = canonicalJsonUnchecked(value);
        this.hash.update(position === 0 ? text : `,${text}`, "utf8");
      } catch {
        this.hash = null;
      }
    }
    if (this.recountable) {
      try {
        this.recount.add(facts);
      } catch {
        this.recountable = false;
      }
    }
    tagProblems(this.problems, this.positions, position, this.kept);
    return usable;
  }

  /**
   * The compact record at `position` (its bytes `record`) and the export record of that index
   * (`exported`), when they are a clean pair read from their bytes (clean-pair.ts): counted as the
   * general way counts it, and true; else false, and nothing was done (read both the general way).
   * Only for a manifest whose bytes are its canonical form (the canonical reader), so nothing is
   * hashed here.
   */
  cleanPair(record: Buffer, exported: Buffer, position: number): boolean {
    if (!this.canonicalFile || this.held || this.geometry === null || this.bounds === null) return false;
    const pair = cleanPair(record, exported, position, this.geometry, this.bounds);
    if (pair === null) return false;
    this.cleanPairs++;
    this.count = position + 1;
    this.firstOfShape.v2 ??= position;
    // The facts of a clean admission the recount reads (what recordState gives every such record).
    if (this.recountable) this.recount.add({ admission: "admitted", hold_reasons: [], detection: "none", coverage: "complete", id_sha256: pair.idSha256 });
    return true;
  }

  /**
   * One record checked (its problems added): its v1 facts (a v2 record expanded), whether it is
   * usable by index and its verdicts re-classified as recorded, and its first schema issue. A clean
   * admission, nearly every record of a large run, takes the short way (clean-record.ts).
   */
  private checked(value: unknown, compact: boolean, position: number): ManifestRecordCheck & { facts: unknown } {
    const clean = compact && this.geometry !== null ? cleanRecordExpansion(value as Obj, position, this.geometry, this.bounds) : null;
    if (clean !== null) return { facts: clean, usable: clean, verdictsAgree: true, issuePath: null };
    const expanded = compact ? expandedRecord(value as Obj, position, this.geometry) : { record: value, issuePath: null };
    const checked = checkManifestRecordAt(expanded.record, position, this.geometry, this.problems, this.bounds, expanded.issuePath === null);
    return { ...checked, facts: expanded.record, issuePath: expanded.issuePath ?? checked.issuePath };
  }

  /** What this share's records gave, for `absorb` on the thread that assembles the pair. */
  shareState(): ManifestShareState {
    return {
      problems: this.problems.items,
      positions: this.positions,
      notKept: this.kept.notKept,
      recordIssue: this.recordIssue,
      firstOfShape: this.firstOfShape,
      idDigests: this.idDigests.state(),
      counts: this.recountable ? this.recount.counts() : null,
      citedEntries: this.cited.keys(),
      cleanPairs: this.cleanPairs,
    };
  }

  /** Takes in another share's records (pair-share.ts): as if this one had checked them in order. */
  absorb(other: ManifestShareState): void {
    mergeProblems(this.problems, this.positions, other.problems, other.positions, this.kept, other.notKept);
    this.cleanPairs += other.cleanPairs;
    const otherIssueAt = other.recordIssue?.[1] as number | undefined;
    if (otherIssueAt !== undefined && (this.recordIssue === null || otherIssueAt < (this.recordIssue[1] as number))) this.recordIssue = other.recordIssue;
    for (const shape of ["v1", "v2"] as const) {
      const theirs = other.firstOfShape[shape];
      if (theirs !== null && (this.firstOfShape[shape] === null || theirs < (this.firstOfShape[shape] as number))) this.firstOfShape[shape] = theirs;
    }
    // Taken in even when not recountable, so that its files are removed by `close`.
    this.idDigests.absorb(other.idDigests);
    if (other.counts === null) this.recountable = false;
    if (this.recountable && other.counts !== null) this.recount.absorb(other.counts);
    this.cited.absorb(other.citedEntries);
  }

  /** Removes what the id digests left on disk (theirs too, once absorbed). */
  close(): void {
    this.idDigests.close();
  }

  /** Whether a usable record's verdicts were found to re-classify as recorded (not classified again). */
  verdictsAgree(record: Obj | undefined): boolean {
    return record !== undefined && this.agreeing.has(record);
  }

  /**
   * The manifest's facts once its rest is known, or "reread" when a member that sorts before
   * `records` came after it (it could not be hashed as it streamed): the pair is then read whole.
   * `fileSha`: the SHA-256 of the file's bytes, the canonical one when they were read canonically.
   */
  facts(rest: Obj, fileSha: string): ManifestFacts | "reread" {
    if (!this.streamed) return factsOf(rest);
    let canonical: string | null = this.canonicalFile ? fileSha : null;
    if (this.hash !== null) {
      try {
        assertCanonicalValue(rest);
        const { prefix, suffix } = canonicalObjectFrame(rest, RECORDS_KEY);
        if (prefix !== this.prefix) return "reread";
        canonical = this.hash.update(suffix, "utf8").digest("hex");
      } catch {
        canonical = null;
      }
    }
    return { canonicalSha: canonical, issuePath: this.issuePath(rest) };
  }

  /**
   * The facts of a manifest held whole (`verifyHeld`), its records already fed: the canonical
   * SHA-256 of the whole, and its first schema issue found as for a streamed manifest, so that a
   * record the schema passes but that has no v1 form (or the wrong version's shape) is named the
   * same way whichever path read it.
   */
  heldFacts(root: Obj): ManifestFacts {
    // Not the schema over the whole document: it would build an issue for every bad record (a
    // 2 MB manifest of 200,000 `{}` took 2.7 GB), where the records' first issue is already known.
    return this.streamed ? { canonicalSha: canonicalShaOf(root), issuePath: this.issuePath(root) } : factsOf(root);
  }

  /** The whole manifest's first schema issue: the head's issues in shape order around the records'. */
  private issuePath(rest: Obj): readonly PropertyKey[] | null {
    const schema = manifestDocumentSchema(own(rest, "schema"));
    const parsed = schema.safeParse(withEmptyRecords(rest));
    const issues = parsed.success ? [] : parsed.error.issues;
    const order = Object.keys(schema.shape);
    const recordsAt = order.indexOf(RECORDS_KEY);
    const before = issues.find((issue) => {
      const at = typeof issue.path[0] === "string" ? order.indexOf(issue.path[0]) : -1;
      return at !== -1 && at < recordsAt;
    });
    return before?.path ?? this.shapeIssue(rest) ?? this.recordIssue ?? issues[0]?.path ?? null;
  }

  /** The first record whose shape is not the version the manifest names (`index` is v1's only). */
  private shapeIssue(rest: Obj): readonly PropertyKey[] | null {
    const compact = (manifestVersionNamed(own(rest, "schema")) ?? 1) >= 2;
    const wrong = compact ? this.firstOfShape.v1 : this.firstOfShape.v2;
    return wrong === null ? null : [RECORDS_KEY, wrong, "index"];
  }

  /** Steps 10–11 into `problems` (the head's problems come first, added by the caller). */
  addRecordProblems(head: Obj, problems: ProblemList): void {
    if (!this.streamed) problems.add("manifest_records_missing", "manifest records missing");
    problems.addAll(this.problems.items);
    if (this.kept.notKept > 0) problems.items.push(problemsNotKept("manifest", this.kept.notKept));
    checkRecordsTotal(head, this.count, problems);
  }

  /** Step 17. */
  addCountsProblem(head: Obj, problems: ProblemList): void {
    const repeats = this.idDigests.repeats();
    if (repeats === null) {
      // Not a problem of the pair: the recount could not be done, so the pair is not verified.
      problems.add("verify_failed", `verification failed (repeated ids could not be counted: the temporary directory failed with ${this.idDigests.failure})`);
      return;
    }
    checkRecount(head, this.recountable ? { ...this.recount.counts(), duplicate_ids: repeats } : undefined, problems);
    checkCitedEntries(head, this.cited, problems);
  }
}

/**
 * The export's side. Streamed in lockstep with the manifest, records must come in strictly
 * increasing index order (as ingest writes them); `outOfOrder` turns true when they do not, and
 * the pair is then read whole. Held whole (`held`), any order: the exported indices are kept, so
 * duplicates, order and missing records are judged over the lists.
 */
export class StreamedExport {
  readonly problems = new ProblemList();
  /** The position in the export of the record each problem is about. */
  private readonly positions: number[] = [];
  /** Problems of its records found past MAX_KEPT_RECORD_PROBLEMS. */
  private readonly kept: KeptProblems = { notKept: 0 };
  count = 0;
  streamed = false;
  outOfOrder = false;
  private last = Number.NEGATIVE_INFINITY;
  /** The first MAX_LISTED_MISSING admitted indices missing from the export, in order, and how many there are in all. */
  private readonly missing: number[] = [];
  private missingCount = 0;
  private schemaOk = true;
  /** The exported indices, kept only for an export held whole. */
  private readonly seen: Set<number> | null;
  /** An export record that is malformed, duplicated or not admitted in the manifest. */
  private foreign = false;

  constructor(held = false) {
    this.seen = held ? new Set() : null;
  }

  /** The index an export element asks for, or null for a malformed one (reported here). */
  indexOf(item: unknown, position: number): number | null {
    const index = isObj(item) ? own(item, "index") : undefined;
    if (!isObj(item) || !isInt(index)) {
      this.count = position + 1;
      this.problems.add("export_record_malformed", `export record at position ${position}: malformed`);
      tagProblems(this.problems, this.positions, position, this.kept);
      this.schemaOk = false;
      this.foreign = true;
      return null;
    }
    return this.indexAt(index, position);
  }

  /** The index of a well-formed export element at `position` (read from its bytes, or by indexOf). */
  indexAt(index: number, position: number): number {
    this.count = position + 1;
    if (index <= this.last) this.outOfOrder = true;
    this.last = index;
    // Strictly increasing indices cannot repeat, so only a held export needs the set.
    if (this.seen?.has(index) === true) {
      this.problems.add("record_duplicated", `record ${index}: duplicated in export`);
      tagProblems(this.problems, this.positions, position, this.kept);
      this.foreign = true;
    }
    this.seen?.add(index);
    return index;
  }

  /**
   * A manifest record went by, with the index of the export record it was read for (streamed),
   * or after the whole export (held: null): an admitted one the export does not hold is missing.
   */
  passed(position: number, usable: Obj | null, wanted: number | null): void {
    const held = this.seen === null ? position === wanted : this.seen.has(position);
    if (usable !== null && own(usable, "admission") === "admitted" && !held) {
      // Positions come in increasing order: the first ones are the smallest.
      this.missingCount++;
      if (this.missing.length < MAX_LISTED_MISSING) this.missing.push(position);
    }
  }

  /**
   * Step 13 for one well-formed export record (`manifestRecord`: the usable one at its index;
   * `verdictsAgree`: its verdicts were re-classified as recorded by the manifest check;
   * `canonicalBytes`: its bytes, when the fast reader proved them canonical).
   */
  record(
    item: Obj,
    index: number,
    manifestRecord: Obj | undefined,
    geometry: Geometry | null,
    verdictsAgree = false,
    canonicalBytes?: Buffer,
    left?: StringLeftAsBytes,
  ): void {
    if (manifestRecord === undefined || own(manifestRecord, "admission") !== "admitted") this.foreign = true;
    checkExportRecord(item, index, manifestRecord, geometry, this.problems, verdictsAgree, canonicalBytes, left);
    tagProblems(this.problems, this.positions, this.count - 1, this.kept);
    if (!this.schemaOk || this.problems.items.length > 0) return;
    if (canonicalBytes !== undefined) {
      // A record the fast reader read (plain parsed data) that met every check above already has
      // the schema's every field: exactly its keys, an index of a manifest position, labels that
      // are strings or null, both digests equal to lowercase hex ones computed here, a metadata
      // string map. Only a non-empty text is left to ask (test/verify/export-record-schema.test.ts).
      this.schemaOk = (left === undefined ? (own(item, "text") as string).length : left.length) > 0;
      return;
    }
    // A text left as bytes is a string of at least one code point (its `""` stands in for it).
    this.schemaOk = left === undefined ? EXPORT_RECORD_CHECK.accepts(item) : left.length > 0 && EXPORT_RECORD_LEFT_TEXT_CHECK.accepts(item);
  }

  /** What this share's records gave, for `absorb` on the thread that assembles the pair. */
  shareState(): ExportShareState {
    return {
      problems: this.problems.items,
      positions: this.positions,
      notKept: this.kept.notKept,
      missing: this.missing,
      missingCount: this.missingCount,
      schemaOk: this.schemaOk,
      foreign: this.foreign,
    };
  }

  /** Takes in another share's records (pair-share.ts): as if this one had checked them in order. */
  absorb(other: ExportShareState): void {
    mergeProblems(this.problems, this.positions, other.problems, other.positions, this.kept, other.notKept);
    // Each share kept its smallest missing indices, so the smallest of both are among them.
    appendAll(this.missing, other.missing);
    this.missing.sort((a, b) => a - b);
    if (this.missing.length > MAX_LISTED_MISSING) this.missing.length = MAX_LISTED_MISSING;
    this.missingCount += other.missingCount;
    // Each share judged the schema only while it had no problem; with any problem it is not asked.
    this.schemaOk &&= other.schemaOk;
    this.foreign ||= other.foreign;
  }

  /** Steps 12–16 into `problems`; false when step 12 ended the pair (no record list). */
  addRecordProblems(manifestHead: Obj, problems: ProblemList): boolean {
    if (!this.streamed) {
      problems.add("export_records_missing", "export records missing");
      return false;
    }
    problems.addAll(this.problems.items);
    if (this.kept.notKept > 0) problems.items.push(problemsNotKept("export", this.kept.notKept));
    if (this.missingCount > 0) {
      const more = this.missingCount - this.missing.length;
      problems.add("admitted_missing", `admitted records missing from export: [${this.missing.join(", ")}]${more > 0 ? ` and ${more} more` : ""}`);
    }
    // All admitted, none missing and none repeated is the manifest's admitted set, in its
    // increasing order exactly when the indices strictly increase (always so when streamed).
    if (this.missingCount === 0 && !this.foreign && this.outOfOrder) problems.add("export_order", "export records are not in manifest order");
    checkAdmittedCount(manifestHead, this.count, problems);
    return true;
  }

  /** The final whole-export schema check, for a pair with no other problem. */
  addSchemaProblem(exportRest: Obj, problems: ProblemList): void {
    if (problems.items.length > 0) return;
    const name = own(exportRest, "schema");
    if (!this.schemaOk || !exportDocumentSchema(name).safeParse(withEmptyRecords(exportRest)).success)
      problems.add("export_fields", `export does not match the ${isExportSchemaName(name) ? name : EXPORT_SCHEMA} schema`);
  }
}

/** What a share of the manifest's records gave (StreamedManifest.absorb). */
export interface ManifestShareState {
  readonly problems: readonly VerifyProblem[];
  readonly positions: readonly number[];
  /** Its problems found past MAX_KEPT_RECORD_PROBLEMS. */
  readonly notKept: number;
  readonly recordIssue: readonly PropertyKey[] | null;
  readonly firstOfShape: { readonly v1: number | null; readonly v2: number | null };
  /** Its id digests. */
  readonly idDigests: IdDigestState;
  /** Its recount, or null when one of its records could not be counted. */
  readonly counts: ManifestCounts | null;
  /** The allowlist entries its records cite (CitedAllowEntries.keys). */
  readonly citedEntries: readonly string[];
  /** Its records read as clean pairs from their bytes. */
  readonly cleanPairs: number;
}

/** What a share of the export's records gave (StreamedExport.absorb). */
export interface ExportShareState {
  readonly problems: readonly VerifyProblem[];
  readonly positions: readonly number[];
  /** Its problems found past MAX_KEPT_RECORD_PROBLEMS. */
  readonly notKept: number;
  readonly missing: readonly number[];
  /** How many admitted indices are missing in all (`missing` lists the first MAX_LISTED_MISSING). */
  readonly missingCount: number;
  readonly schemaOk: boolean;
  readonly foreign: boolean;
}

/** How many of a document's record problems were found and not kept (MAX_KEPT_RECORD_PROBLEMS). */
interface KeptProblems {
  notKept: number;
}

/**
 * Tags the problems added since the last tag with `position`, then drops the last ones past
 * MAX_KEPT_RECORD_PROBLEMS (they come in position order, so the first ones are kept) and counts them.
 */
function tagProblems(problems: ProblemList, positions: number[], position: number, kept: KeptProblems): void {
  while (positions.length < problems.items.length) positions.push(position);
  keepFirst(problems, positions, kept);
}

function keepFirst(problems: ProblemList, positions: number[], kept: KeptProblems): void {
  const over = problems.items.length - MAX_KEPT_RECORD_PROBLEMS;
  if (over <= 0) return;
  problems.items.length = MAX_KEPT_RECORD_PROBLEMS;
  positions.length = MAX_KEPT_RECORD_PROBLEMS;
  kept.notKept += over;
}

/**
 * Merges another share's problems into `problems`, both in position order (a position is in one
 * share only), keeping the first as one share would: each share kept its first ones, so the first
 * of both are among them; the other share's count of those not kept is added.
 */
function mergeProblems(
  problems: ProblemList,
  positions: number[],
  more: readonly VerifyProblem[],
  at: readonly number[],
  kept: KeptProblems,
  otherNotKept: number,
): void {
  const merged = [
    ...problems.items.map((problem, i) => ({ problem, position: positions[i] as number })),
    ...more.map((problem, i) => ({ problem, position: at[i] as number })),
  ];
  // A stable sort keeps each position's problems in the order they were found.
  merged.sort((a, b) => a.position - b.position);
  problems.items.length = 0;
  positions.length = 0;
  for (const m of merged) {
    problems.items.push(m.problem);
    positions.push(m.position);
  }
  kept.notKept += otherNotKept;
  keepFirst(problems, positions, kept);
}

/** Assembles the problems in check order: of a pair, or of a manifest alone (`exported` null). */
export function assembleProblems(
  exportRoot: unknown,
  manifestRoot: unknown,
  facts: ManifestFacts,
  fileSha: ManifestFileSha,
  manifest: StreamedManifest,
  exported: StreamedExport | null,
): VerifyProblem[] {
  const problems = new ProblemList();
  if (exported !== null && !isDocumentObject(exportRoot)) {
    problems.add("export_not_object", "export is not an object");
    return problems.items;
  }
  if (!isDocumentObject(manifestRoot)) {
    problems.add("manifest_not_object", "manifest is not an object");
    return problems.items;
  }
  const exportHead = exported === null ? null : exported.streamed ? withEmptyRecords(exportRoot as Obj) : (exportRoot as Obj);
  const manifestHead = manifest.streamed ? withEmptyRecords(manifestRoot) : manifestRoot;
  checkHead(exportHead, manifestHead, facts, fileSha, problems);
  manifest.addRecordProblems(manifestHead, problems);
  if (exported !== null && !exported.addRecordProblems(manifestHead, problems)) return problems.items;
  manifest.addCountsProblem(manifestHead, problems);
  exported?.addSchemaProblem(exportRoot as Obj, problems);
  return problems.items;
}

/** Stands for "no export given" in `verifyHeld` (any value, `undefined` included, may be an export). */
export const NO_EXPORT: unique symbol = Symbol("no export");

/** The records array of a document held whole, or null when it has none. */
function recordsOf(root: unknown): unknown[] | null {
  if (!isObj(root)) return null;
  const records = own(root, RECORDS_KEY);
  return Array.isArray(records) ? records : null;
}

/**
 * Problems of documents held in memory ([] = consistent): the verifier fed each records array
 * from memory, the manifest's first, then the export's in any order (without an export, the
 * manifest is checked alone). Throws only when reading a value throws (a hostile object, never
 * a parsed document); the callers turn that into `verify_failed`.
 */
export function verifyHeld(exportRoot: unknown, manifestRoot: unknown, fileSha: ManifestFileSha): VerifyProblem[] {
  const manifest = new StreamedManifest(true);
  try {
    return checkHeld(exportRoot, manifestRoot, fileSha, manifest);
  } finally {
    manifest.close();
  }
}

function checkHeld(exportRoot: unknown, manifestRoot: unknown, fileSha: ManifestFileSha, manifest: StreamedManifest): VerifyProblem[] {
  const manifestRecords = recordsOf(manifestRoot);
  const usable: Array<Obj | null> = [];
  if (manifestRecords !== null) {
    manifest.begin(manifestRoot as Obj);
    manifestRecords.forEach((record, position) => {
      usable[position] = manifest.record(record, position);
    });
    // Holes are skipped as the record list is walked, but counted in its length.
    manifest.count = manifestRecords.length;
  }
  // Held whole, the manifest is hashed whole: its members may be in any order.
  const facts = isObj(manifestRoot) ? manifest.heldFacts(manifestRoot) : { canonicalSha: null, issuePath: null };
  if (exportRoot === NO_EXPORT) return assembleProblems(exportRoot, manifestRoot, facts, fileSha, manifest, null);
  const exported = new StreamedExport(true);
  const exportRecords = recordsOf(exportRoot);
  if (exportRecords !== null) {
    exported.streamed = true;
    exportRecords.forEach((item, position) => {
      const index = exported.indexOf(item, position);
      if (index === null) return;
      const target = usable[index] ?? undefined;
      exported.record(item as Obj, index, target, manifest.geometry, manifest.verdictsAgree(target));
    });
    exported.count = exportRecords.length;
    usable.forEach((record, position) => exported.passed(position, record, null));
  }
  return assembleProblems(exportRoot, manifestRoot, facts, fileSha, manifest, exported);
}
