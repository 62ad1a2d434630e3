// The verdict cache as one ingest run sees it: segment results by the SHA-256 of their text under
// the run's canary identity; a hit comes back `reused` with its original check time; only
// exercised passes, flags and blocks are stored. A stored verdict is classified again and must
// give its stored state and `exercised` and match the verdict schema, or it is a miss: a cache
// edited by hand can never turn into a pass its verdict does not support.
import { classifySegmentVerdict, isClassifyError } from "../documents/classify.js";
import type { SegmentResult } from "../documents/manifest-records.js";
import { TimestampSchema } from "../documents/schemas.js";
import { isPlainObject } from "../core/guards.js";

/** Segment results by segment digest, for one run's identity; counts its hits and misses. */
export interface SegmentVerdictCache {
  /** The stored result (marked `reused`), or null; each call counts one hit or one miss. */
  lookup(segmentSha256: string): SegmentResult | null;
  /** Stores a result if it is an exercised pass, flag or block; anything else is ignored. */
  store(segmentSha256: string, result: SegmentResult): void;
  /** As `lookup`, without counting: for building a record entry from what is stored. */
  peek(segmentSha256: string): SegmentResult | null;
  /** Counts `count` hits served without a lookup (a whole record's segments reused at once). */
  countHits(count: number): void;
  readonly hits: number;
  readonly misses: number;
}

/** A stored entry as the store gives it back: the value it was given and when it was stored. */
export interface StoredVerdict {
  readonly value: unknown;
  readonly checkedAt: string;
  /**
   * The state the store files it under (the SQLite cache's `state` column, which `cache stats`
   * counts); when given, the value must hold the same, or the entry is a miss.
   */
  readonly state?: string;
}

/** The store under a SegmentVerdictCache (the SQLite cache, or a map in tests). */
export interface VerdictStore {
  get(segmentSha256: string): StoredVerdict | null;
  put(segmentSha256: string, value: Record<string, unknown>, state: "pass" | "flag" | "block"): void;
}

const CACHEABLE = new Set(["pass", "flag", "block"]);

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** A stored value back as a result, or null unless it holds together (see the header). */
function resultOf(stored: StoredVerdict): SegmentResult | null {
  const v = stored.value;
  if (!isPlainObject(v) || !TimestampSchema.safeParse(stored.checkedAt).success) return null;
  const { state, exercised, verdict, latency, prompt_eval_count: promptEvalCount, signals } = v as Record<string, unknown>;
  if (typeof state !== "string" || !CACHEABLE.has(state) || exercised !== true) return null;
  // An entry filed under another state than it holds (a hand-edited column) is trusted by neither.
  if (stored.state !== undefined && stored.state !== state) return null;
  const classified = classifySegmentVerdict(verdict);
  if (isClassifyError(classified) || classified.state !== state || classified.exercised !== true) return null;
  if (!(latency === null || (typeof latency === "number" && Number.isFinite(latency) && latency >= 0))) return null;
  if (!(promptEvalCount === null || isCount(promptEvalCount))) return null;
  if (!Array.isArray(signals) || !signals.every((signal) => typeof signal === "string")) return null;
  return {
    state: classified.state,
    exercised: true,
    verdict: verdict as SegmentResult["verdict"],
    error: null,
    latency: latency as number | null,
    prompt_eval_count: promptEvalCount as number | null,
    signals: signals as string[],
    reused: { checked_at: stored.checkedAt },
  };
}

/** A SegmentVerdictCache over `store`. */
export function segmentVerdictCache(store: VerdictStore): SegmentVerdictCache {
  let hits = 0;
  let misses = 0;
  const peek = (segmentSha256: string): SegmentResult | null => {
    const stored = store.get(segmentSha256);
    return stored === null ? null : resultOf(stored);
  };
  return {
    lookup(segmentSha256) {
      const result = peek(segmentSha256);
      if (result === null) misses++;
      else hits++;
      return result;
    },
    store(segmentSha256, result) {
      // Only exercised passes, flags and blocks, with everything the manifest records of them.
      if (!result.exercised || !CACHEABLE.has(result.state) || result.verdict === null || result.error !== null) return;
      const { state, exercised, verdict, latency, prompt_eval_count } = result;
      store.put(
        segmentSha256,
        { state, exercised, verdict, latency, prompt_eval_count, signals: [...(result.signals ?? [])] },
        state as "pass" | "flag" | "block",
      );
    },
    peek,
    countHits(count) {
      hits += count;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
  };
}
