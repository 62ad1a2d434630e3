// The false-block allowlist (`ingest --allow FILE`): a reviewed list of content hashes whose
// detections a person has judged false. Parsing (fixed error messages that name the entry index,
// never a value) and the one matching rule, shared by ingest (which admits) and verify (which
// recomputes whether an allow-listed admission could have happened).
// The rule: only a record held for detections alone (`blocked` and/or `flagged`) can be
// admitted. A coverage failure (malformed, over budget, degraded, unexercised, error,
// incomplete) is never allow-listed: nothing vouches for text that was not inspected.
// Scope `record` matches the record's `material_sha256` (text, id, source and metadata: the
// metadata is screened too, so a text-only key would let changed metadata through); scope
// `segment` matches a segment's `sha256`, and the record is admitted only when every segment
// that detected something is listed. Paths and ids are never keys: they name where content
// came from, not what it is, so an allowance by name would admit whatever is put there next.
import { z } from "zod";
import { codePointLength } from "../core/codepoints.js";
import { UsageError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { readStrictDocument } from "../core/strict-document.js";
import type { HoldReason, SegmentState } from "./states.js";
import { sha256 } from "./fields.js";

/** Largest allow file read, in bytes. */
export const MAX_ALLOW_FILE_BYTES = 4 * 1024 * 1024;
/** Most entries in one allow file. */
export const MAX_ALLOW_ENTRIES = 10_000;
/** Longest `reason`, in code points. */
const MAX_ALLOW_REASON_CHARS = 200;
/** Longest `by`, in code points. */
const MAX_ALLOW_BY_CHARS = 100;

// C0/C1 controls, line and paragraph separators, and bidirectional overrides: a reason is
// shown to reviewers, so it must read as what it is.
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

const boundedText = (max: number) =>
  z.string().refine((s) => s.length > 0 && s.isWellFormed() && !CONTROL.test(s) && codePointLength(s) <= max && s.trim().length > 0, {
    message: `must be non-empty text of at most ${max} code points without control characters`,
  });

/** One entry of an allow file (and of a manifest record's `allowlist_entries`). */
export const AllowEntrySchema = z.strictObject({
  sha256,
  /** Which hash the entry names: the record's material or one segment. */
  scope: z.enum(["record", "segment"]),
  reason: boundedText(MAX_ALLOW_REASON_CHARS),
  by: boundedText(MAX_ALLOW_BY_CHARS),
});
/** One allow-list entry: a content hash, its scope, why it is allowed and who decided. */
export type AllowEntry = z.infer<typeof AllowEntrySchema>;

/** zod schema of an allow file: a JSON list of entries. */
export const AllowFileSchema = z.array(AllowEntrySchema).max(MAX_ALLOW_ENTRIES);

/** A parsed allow file: its entries by scope and hash, and the SHA-256 of its bytes. */
export interface Allowlist {
  /** SHA-256 of the allow file's exact bytes (recorded as the manifest's run.allowlist.sha256). */
  readonly sha256: string;
  readonly entries: readonly AllowEntry[];
  readonly records: ReadonlyMap<string, AllowEntry>;
  readonly segments: ReadonlyMap<string, AllowEntry>;
}

const FIELD_RULES: Readonly<Record<string, string>> = {
  sha256: "sha256 must be 64 lowercase hex digits",
  scope: 'scope must be "record" or "segment"',
  reason: `reason must be non-empty text of at most ${MAX_ALLOW_REASON_CHARS} code points without control characters`,
  by: `by must be non-empty text of at most ${MAX_ALLOW_BY_CHARS} code points without control characters`,
};

const refuse = (message: string): UsageError => new UsageError(`--allow: ${message}`);

/** A fixed sentence for the first schema issue: the entry index and the field, never a value. */
function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  const [index, field] = issue.path;
  if (issue.path.length === 0) {
    return Array.isArray(value) ? `the file holds more than ${MAX_ALLOW_ENTRIES} entries` : "the file must hold a JSON list of entries";
  }
  if (typeof index !== "number") return "the file must hold a JSON list of entries";
  if (field === undefined) {
    if (issue.code === "unrecognized_keys") return `entry ${index}: unknown key (allowed: sha256, scope, reason, by)`;
    return `entry ${index}: must be an object with sha256, scope, reason and by`;
  }
  const rule = typeof field === "string" ? FIELD_RULES[field] : undefined;
  return `entry ${index}: ${rule ?? "invalid"}`;
}

/**
 * Parses the bytes of an allow file: strict UTF-8 and JSON (no byte order mark, no duplicate
 * keys), at most MAX_ALLOW_FILE_BYTES, a list of at most MAX_ALLOW_ENTRIES entries
 * `{sha256, scope, reason, by}` with no other key. The same hash listed twice in one scope is
 * refused (two reasons for one decision). Throws UsageError whose message starts `--allow:`
 * and names the entry index; it never contains any of the file's content.
 */
export function parseAllowlist(bytes: Uint8Array): Allowlist {
  if (bytes.byteLength > MAX_ALLOW_FILE_BYTES) throw refuse(`the file is larger than ${MAX_ALLOW_FILE_BYTES} bytes`);
  const read = readStrictDocument(bytes, { maxValues: MAX_ALLOW_ENTRIES * 16 });
  if (!read.ok) throw refuse(`the file is not a strict JSON document (${read.message})`);
  if (read.loneSurrogate) {
    const at = Array.isArray(read.value) ? read.value.findIndex((e) => !JSON.stringify(e).isWellFormed()) : -1;
    throw refuse(at >= 0 ? `entry ${at}: holds a lone surrogate` : "the file holds a lone surrogate");
  }
  const parsed = AllowFileSchema.safeParse(read.value);
  if (!parsed.success) throw refuse(issueMessage(parsed.error.issues[0] as z.core.$ZodIssue, read.value));
  const records = new Map<string, AllowEntry>();
  const segments = new Map<string, AllowEntry>();
  const firstAt = new Map<string, number>();
  parsed.data.forEach((entry, index) => {
    const key = `${entry.scope}:${entry.sha256}`;
    const first = firstAt.get(key);
    if (first !== undefined) throw refuse(`entry ${index}: repeats the hash and scope of entry ${first}`);
    firstAt.set(key, index);
    (entry.scope === "record" ? records : segments).set(entry.sha256, entry);
  });
  return { sha256: sha256Hex(bytes), entries: parsed.data, records, segments };
}

/** Hold reasons a person may overrule: detections. Every other reason is a coverage failure. */
const DETECTION_REASONS: ReadonlySet<HoldReason> = new Set<HoldReason>(["blocked", "flagged"]);

/** True when a record is held and every one of its hold reasons is a detection. */
export function heldForDetectionOnly(holdReasons: readonly HoldReason[]): boolean {
  return holdReasons.length > 0 && holdReasons.every((reason) => DETECTION_REASONS.has(reason));
}

/** A segment as the matching rule sees it. */
export interface AllowableSegment {
  readonly sha256: string;
  readonly state: SegmentState;
}

const detects = (state: SegmentState): boolean => state === "block" || state === "flag";

/**
 * The entries that admit a record held for these reasons, or null when none does: a record
 * entry for its `material_sha256`, else one segment entry for every detecting segment (in plan
 * order, each entry once). Null whenever a hold reason is not a detection.
 */
export function allowlistMatch(
  record: { readonly material_sha256: string; readonly hold_reasons: readonly HoldReason[]; readonly segments: readonly AllowableSegment[] },
  allowlist: Allowlist,
): AllowEntry[] | null {
  if (!heldForDetectionOnly(record.hold_reasons)) return null;
  const whole = allowlist.records.get(record.material_sha256);
  if (whole !== undefined) return [whole];
  const entries: AllowEntry[] = [];
  for (const segment of record.segments) {
    if (!detects(segment.state)) continue;
    const entry = allowlist.segments.get(segment.sha256);
    if (entry === undefined) return null;
    if (!entries.includes(entry)) entries.push(entry);
  }
  return entries.length > 0 ? entries : null;
}

/**
 * Whether recorded entries could have admitted a record with these segments: one record entry
 * naming its material hash, or segment entries naming exactly the distinct hashes of its
 * detecting segments. `verify` uses it; it cannot see the allow file, whose SHA-256 the manifest
 * records so a reviewer can check the entries against it.
 */
export function allowEntriesFit(
  record: { readonly material_sha256: string; readonly segments: readonly AllowableSegment[] },
  entries: readonly AllowEntry[],
): boolean {
  if (entries.length === 0) return false;
  if (entries.length === 1 && entries[0]?.scope === "record") return entries[0].sha256 === record.material_sha256;
  if (!entries.every((e) => e.scope === "segment")) return false;
  const wanted = [...new Set(record.segments.filter((s) => detects(s.state)).map((s) => s.sha256))];
  const listed = entries.map((e) => e.sha256);
  return listed.length === wanted.length && new Set(listed).size === listed.length && wanted.every((sha, i) => listed[i] === sha);
}
