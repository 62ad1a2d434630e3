// The segment plan of a validated record (docs/ingest.md, "Segments"): metadata segments first
// (only when the material is non-empty), then text segments, so metadata is screened first.
// Also decides `over_budget` (text bytes above `max_item_bytes` first, then more segments than
// `max_segments`); an over-budget plan carries its counts but no segments, so a hostile record is
// never sliced. Pure: the same record and policy always give the same plan; `verify` rebuilds it.
import type { IngestPolicy } from "./policy.js";
import type { ManifestSegment } from "./schemas.js";
import { sha256Hex } from "../core/hash.js";
import { codePointLength, hasSurrogate, utf8ByteLength } from "../core/codepoints.js";
import { metadataMaterial, type MaterialSource } from "./segment-material.js";
import { segmentCount, segmentSpans, type Span } from "./segment-spans.js";

/**
 * One planned segment as the manifest records it (its kind, index among its kind from 0,
 * code-point span `[start, end)` into the kind's material, the slice's SHA-256) with the slice.
 */
type PlannedSegment = Pick<ManifestSegment, "kind" | "index" | "start" | "end" | "sha256"> & { readonly text: string };

interface OverBudget {
  readonly code: "text_bytes" | "segments";
  /** Detail without the `record i: ` prefix, which the caller adds. */
  readonly message: string;
}

/** The segment plan of a record: its segments in check order, or why it is over budget. */
export interface SegmentPlan {
  readonly material: string;
  readonly segments: readonly PlannedSegment[];
  readonly segments_total: number;
  readonly over_budget: boolean;
  readonly over_budget_reason: OverBudget | null;
  /** Code points of text plus material. */
  readonly chars_total: number;
}

export interface SegmentableRecord extends MaterialSource {
  readonly text: string;
}

export type PlanPolicy = Pick<IngestPolicy, "segment_chars" | "segment_overlap" | "max_segments" | "max_item_bytes">;

/**
 * Slices of `text` for spans whose starts and ends both ascend, found in one pass over the
 * string (a per-span code-point walk would be quadratic for tiny segments).
 */
export function sliceSpans(text: string, spans: readonly Span[], length?: number): string[] {
  // Without surrogates every code point is one UTF-16 unit, so offsets are unit offsets (the
  // common case, and a native scan instead of a walk in JavaScript). A known code-point `length`
  // equal to the unit count says the same without scanning again.
  if (length === text.length || !hasSurrogate(text)) return spans.map((s) => text.slice(s.start, s.end));
  const wanted = [...new Set(spans.flatMap((s) => [s.start, s.end]))].sort((a, b) => a - b);
  const unitAt = new Map<number, number>();
  let unit = 0;
  let cp = 0;
  for (const target of wanted) {
    while (cp < target && unit < text.length) {
      const code = text.charCodeAt(unit);
      const pair = code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length && text.charCodeAt(unit + 1) >= 0xdc00 && text.charCodeAt(unit + 1) <= 0xdfff;
      unit += pair ? 2 : 1;
      cp++;
    }
    unitAt.set(target, unit);
  }
  return spans.map((s) => text.slice(unitAt.get(s.start) as number, unitAt.get(s.end) as number));
}

/**
 * The segments of one kind's material of `length` code points. `wholeSha256`: the material's own
 * SHA-256 when the caller has it: a segment that is the whole material (the usual text segment
 * of a short record) takes it instead of hashing the same bytes again.
 */
function planKind(kind: PlannedSegment["kind"], material: string, length: number, policy: PlanPolicy, wholeSha256?: string): PlannedSegment[] {
  const spans = segmentSpans(length, policy.segment_chars, policy.segment_overlap);
  // One segment that is the whole material, its digest known: nothing to slice or hash.
  if (wholeSha256 !== undefined && spans.length === 1 && spans[0]?.start === 0 && spans[0].end === length) {
    return [{ kind, index: 0, start: 0, end: length, text: material, sha256: wholeSha256 }];
  }
  const slices = sliceSpans(material, spans, length);
  return spans.map((span, index) => {
    const slice = slices[index] as string;
    const whole = wholeSha256 !== undefined && span.start === 0 && span.end === length;
    return { kind, index, start: span.start, end: span.end, text: slice, sha256: whole ? wholeSha256 : sha256Hex(slice) };
  });
}

/**
 * Whether a validated record is over budget: planSegments(record, policy).over_budget, found
 * without scanning the text for most records. A string of n UTF-16 units has at most n code
 * points and at most 3n UTF-8 bytes, and a segment count never falls as a length grows, so a
 * record within budget by those bounds is within budget; only the rest are measured exactly.
 */
export function isOverBudget(record: SegmentableRecord, policy: PlanPolicy): boolean {
  const { segment_chars: chars, segment_overlap: overlap } = policy;
  const units = record.text.length;
  const materialUnits = metadataMaterial(record).length;
  if (3 * units <= policy.max_item_bytes && segmentCount(materialUnits, chars, overlap) + segmentCount(units, chars, overlap) <= policy.max_segments) {
    return false;
  }
  return planSegments(record, policy, { budgetOnly: true }).over_budget;
}

/** How planSegments is asked. */
export interface PlanOptions {
  /** Only whether the record is over budget: a plan within budget then has no segments. */
  readonly budgetOnly?: boolean;
  /** `sha256Hex(record.text)`, when the caller has computed it (a whole-text segment reuses it). */
  readonly textSha256?: string;
  /**
   * `codePointLength(record.text)`, when the caller has computed it (the text is not scanned
   * again). With `textSha256` too and no byte budget, a text of one segment is not read at all,
   * so a caller that holds it as bytes (verify) may give `""` for it; it must give the text itself
   * when the plan has more than one text segment, whose slices are hashed.
   */
  readonly textLength?: number;
}

/**
 * Plan the segments of a validated record (every string well-formed; sha256Hex refuses
 * otherwise). Throws UsageError when the policy's segment geometry is invalid.
 */
export function planSegments(record: SegmentableRecord, policy: PlanPolicy, options: PlanOptions = {}): SegmentPlan {
  const material = metadataMaterial(record);
  const materialLength = codePointLength(material);
  const textLength = options.textLength ?? codePointLength(record.text);
  const { segment_chars: chars, segment_overlap: overlap } = policy;
  const total = segmentCount(materialLength, chars, overlap) + segmentCount(textLength, chars, overlap);
  const charsTotal = textLength + materialLength;

  let reason: OverBudget | null = null;
  // Without a byte budget (verify rebuilding a plan) the text is not measured at all.
  if (policy.max_item_bytes !== Number.POSITIVE_INFINITY && utf8ByteLength(record.text) > policy.max_item_bytes) {
    reason = { code: "text_bytes", message: `text exceeds ${policy.max_item_bytes} bytes` };
  } else if (total > policy.max_segments) {
    reason = { code: "segments", message: `needs ${total} segments, limit ${policy.max_segments}` };
  }
  // `budgetOnly`: only whether the record is over budget is wanted (the first pass of a streamed
  // run), so nothing is sliced or hashed.
  const segments =
    reason === null && options.budgetOnly !== true
      ? [...planKind("metadata", material, materialLength, policy), ...planKind("text", record.text, textLength, policy, options.textSha256)]
      : [];
  return {
    material,
    segments,
    segments_total: total,
    over_budget: reason !== null,
    over_budget_reason: reason,
    chars_total: charsTotal,
  };
}
