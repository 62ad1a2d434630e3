// Segment spans (exact: `verify` recomputes them): how a material of `length` code points is cut into
// windows of `chars` code points that overlap by `overlap`. Offsets are code points,
// never UTF-16 units. The arithmetic lives apart from slicing so budgets can be checked without
// materializing anything, and so `verify` can rebuild the same spans from a manifest.
import { UsageError } from "../core/errors.js";

/** A half-open `[start, end)` range of code-point offsets. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

function assertGeometry(length: number, chars: number, overlap: number): void {
  if (!Number.isSafeInteger(length) || length < 0) throw new UsageError("segment length must be a non-negative integer");
  if (!Number.isSafeInteger(chars) || chars < 1) throw new UsageError("segment_chars must be at least 1");
  if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap >= chars) throw new UsageError("segment_overlap must be smaller than segment_chars");
}

/** Number of segments `segmentSpans` would return, computed without building them. */
export function segmentCount(length: number, chars: number, overlap: number): number {
  assertGeometry(length, chars, overlap);
  if (length === 0) return 0;
  const stride = chars - overlap;
  return 1 + Math.max(0, Math.ceil((length - chars) / stride));
}

/**
 * Spans of a material of `length` code points: `n = 1 + max(0, ceil((length-C)/(C-O)))`
 * windows, window `i` = `[i*(C-O), min(i*(C-O)+C, length))`. Empty material → no spans.
 * Throws UsageError unless `C ≥ 1` and `0 ≤ O < C` (all integers).
 */
export function segmentSpans(length: number, chars: number, overlap: number): Span[] {
  const count = segmentCount(length, chars, overlap);
  const stride = chars - overlap;
  const spans: Span[] = [];
  for (let i = 0; i < count; i++) {
    const start = i * stride;
    spans.push({ start, end: Math.min(start + chars, length) });
  }
  return spans;
}

/** A segment's place in its record, as a manifest states it (values unchecked). */
export type StatedSpan = Readonly<Partial<Record<"kind" | "index" | "start" | "end", unknown>>>;

/** The segment geometry of a policy: window size and overlap, in code points. */
export interface Geometry {
  readonly chars: number;
  readonly overlap: number;
}

/** The planned places of a record's segments: metadata windows, then text windows (throws UsageError as `segmentSpans`). */
export function segmentPlaces(length: number, charsTotal: number, geometry: Geometry): Array<Span & { kind: "metadata" | "text"; index: number }> {
  const { chars, overlap } = geometry;
  return [
    ...segmentSpans(charsTotal - length, chars, overlap).map((s, index) => ({ kind: "metadata" as const, index, ...s })),
    ...segmentSpans(length, chars, overlap).map((s, index) => ({ kind: "text" as const, index, ...s })),
  ];
}

/**
 * The planned places of a record that states `stated` segments, or null when its plan has another
 * count (or its lengths or the geometry are invalid). Counted first: hostile lengths (10^15 code
 * points) never make us build a huge plan, and a plan of another count is no place for them anyway.
 */
export function placesOfStated(length: number, charsTotal: number, stated: number, geometry: Geometry): ReturnType<typeof segmentPlaces> | null {
  const materialLength = charsTotal - length;
  if (materialLength < 0) return null;
  try {
    const count = segmentCount(materialLength, geometry.chars, geometry.overlap) + segmentCount(length, geometry.chars, geometry.overlap);
    return count === stated ? segmentPlaces(length, charsTotal, geometry) : null;
  } catch {
    return null;
  }
}

/**
 * Whether `segments` are exactly the windows `chars`/`overlap` give a record of `length` text
 * code points and `charsTotal` in all (metadata windows first, then text), none left out:
 * what `verify` and the verdict cache's record entries both check of a stated record.
 */
export function segmentsFollowPlan(length: number, charsTotal: number, segments: readonly StatedSpan[], geometry: Geometry): boolean {
  const materialLength = charsTotal - length;
  if (length < 0 || materialLength < 0) return false;
  const { chars, overlap } = geometry;
  // Counted first: a stated list of the wrong length never makes us build a huge plan.
  if (segmentCount(materialLength, chars, overlap) + segmentCount(length, chars, overlap) !== segments.length) return false;
  return segmentPlaces(length, charsTotal, geometry).every((e, i) => {
    const s = segments[i];
    return s !== undefined && s.kind === e.kind && s.index === e.index && s.start === e.start && s.end === e.end;
  });
}
