// The immutable result of one SecurityPipeline.check. A verdict knows its input (so that
// `safe_input` can be produced) but keeps it in a private field: serialization and inspection
// show only the fields of the serialized verdict (verdict-schema.ts), never the input when unsafe, the canary reply,
// prompts or evidence. Only the pipeline can mint a genuine verdict (`isGenuineVerdict`).
import { inspect } from "node:util";
import type { AnalysisMethod, AnalysisResult, AnalysisStatus, CanaryStatus } from "../analysis/types.js";
import type { CanaryFailureCode } from "../canary/types.js";
import type { SecurityAdvisory } from "./advisory.js";
import type { StructuralMatch } from "../structural/locate.js";
import { roundHalfEven } from "./round.js";
import type { Coverage, LayerJson, SegmentJson, VerdictJson, VerdictWire } from "../documents/verdict-schema.js";

/**
 * Why a check did not cover all of its input (or the canary did not run): the probe's failure codes
 * plus the pipeline's own. `input_too_long`: the text needs more windows than `maxSegments`.
 */
export type CoverageReason = CanaryFailureCode | "probe_failed" | "analysis_failed" | "input_too_long";

/** The layer (or the fail-closed policy) that blocked a verdict. */
export type BlockedBy = "structural_filter" | "canary_probe" | "fail_closed";
export type LayerName = "structural_filter" | "canary_probe";
export type LayerStatus = "passed" | "blocked" | "failed" | "skipped";

/** What callbacks may see of the canary layer: no reply, prompt or evidence. */
export interface AnalysisSnapshot extends Omit<AnalysisResult, "signals" | "summary"> {
  readonly signals: readonly { readonly category: string; readonly severity: number | null }[];
}

/** What one layer of the pipeline did for a check. */
export interface LayerResult {
  readonly name: LayerName;
  readonly passed: boolean | null;
  /** Seconds. */
  readonly latency: number;
  readonly details: string;
  readonly status: LayerStatus;
  readonly coverageReason: CoverageReason | null;
  readonly snapshot: AnalysisSnapshot | null;
  /** Structural reason labels or canary signal categories of this layer (never text). */
  readonly signals: readonly string[];
  /**
   * Structural layer only, when it found reasons: each reason with its explanation and where it
   * matched (code points of the window's text; never the matched text).
   */
  readonly matches?: readonly LayerMatch[];
}

/** One structural reason in one window: its explanation and where it matched (code points of that window's original text). */
interface LayerMatch extends StructuralMatch {
  /** Index of the window in `segments` when the text was screened in windows, else 0 (the whole text). */
  readonly segment: number;
}

/** The state of one window of a long text (the same states as a screened batch item). */
export type SegmentState = "pass" | "flag" | "block" | "degraded" | "unexercised";

/** Coverage of one window of a text longer than `maxInputLength` (see segments.ts). */
export interface SegmentCoverage {
  readonly index: number;
  /** Code-point offsets into the whole text, `[start, end)`. */
  readonly start: number;
  readonly end: number;
  readonly state: SegmentState;
  /** Why the window's canary gave no coverage, or null. */
  readonly coverageReason: CoverageReason | null;
}

const genuine = new WeakSet<PipelineVerdict>();
let minting = false;

/** The verdict of one check: safe or not, which layer blocked, what each layer did, and whether coverage was complete. */
export class PipelineVerdict {
  declare readonly safe: boolean;
  declare readonly totalLatency: number;
  declare readonly layers: readonly LayerResult[];
  declare readonly blockedBy: BlockedBy | null;
  declare readonly summary: string;
  declare readonly canaryRiskScore: number | null;
  declare readonly advisory: SecurityAdvisory;
  declare readonly degraded: boolean;
  declare readonly canaryStatus: CanaryStatus;
  declare readonly analysisMethod: AnalysisMethod;
  declare readonly analysisStatus: AnalysisStatus;
  /** Prompt tokens the backend reports it evaluated (evidence for ingest; not serialized). */
  declare readonly promptEvalCount: number | null;
  /** Per-window coverage when the text was screened in segments; null for a single window. */
  declare readonly segments: readonly SegmentCoverage[] | null;
  /**
   * How much of the text the canary inspected: `complete` (every window), `partial` (some),
   * `none` (the canary did not run, failed, was disabled or skipped after a structural block).
   * Trust a pass only when `safe && coverage === "complete"` (docs/api.md, "Coverage").
   */
  declare readonly coverage: Coverage;
  readonly #input: string;

  /** @internal Use SecurityPipeline.check; direct construction is refused. */
  constructor(input: string, fields: VerdictFields) {
    if (!minting) throw new TypeError("PipelineVerdict is created by SecurityPipeline.check only");
    this.#input = input;
    const segments = fields.segments === null ? null : Object.freeze(fields.segments.map((segment) => Object.freeze({ ...segment })));
    Object.assign(this, fields, { layers: Object.freeze(fields.layers.map(freezeLayer)), segments });
    Object.freeze(this);
  }

  /** The input when it is safe to forward, else "". */
  get safeInput(): string {
    return this.safe ? this.#input : "";
  }

  /** True when the verdict was produced for exactly `text` (ingest checks this per segment). */
  isFor(text: string): boolean {
    return this.#input === text;
  }

  /** Both the canary and its analysis ran to completion. */
  get exercised(): boolean {
    return this.canaryStatus === "exercised" && this.analysisStatus === "exercised" && !this.degraded;
  }

  /** The serialized verdict without `safe_input`, as stored in batch and manifest documents. */
  toRecord(): VerdictJson {
    const record: VerdictJson = {
      safe: this.safe,
      total_latency: roundHalfEven(this.totalLatency, 4),
      blocked_by: this.blockedBy,
      summary: this.summary,
      canary_risk_score: this.canaryRiskScore,
      degraded: this.degraded,
      canary_status: this.canaryStatus,
      analysis_method: this.analysisMethod,
      analysis_status: this.analysisStatus,
      layers: this.layers.map(layerToJson),
      advisory: this.advisory.toJSON(),
    };
    if (this.segments !== null) record.segments = this.segments.map(segmentToJson);
    return record;
  }

  /**
   * The wire form of the verdict (key order kept), as printed by `check` and `/check`: the stored
   * form plus `safe_input` and `coverage`.
   */
  toDict(): VerdictWire {
    const { safe, total_latency, blocked_by, summary, canary_risk_score, degraded, ...rest } = this.toRecord();
    return { safe, safe_input: this.safeInput, total_latency, blocked_by, summary, canary_risk_score, degraded, coverage: this.coverage, ...rest };
  }

  /** The wire form (see toDict). */
  toJSON(): VerdictWire {
    return this.toDict();
  }

  /** Node's inspect shows the wire form only, never the input. */
  [inspect.custom](): string {
    const { safe_input: _omitted, ...shown } = this.toDict();
    return `PipelineVerdict ${inspect(shown, { depth: 4 })}`;
  }
}

function freezeLayer(layer: LayerResult): LayerResult {
  if (layer.matches === undefined) return Object.freeze({ ...layer });
  const matches = Object.freeze(
    layer.matches.map((m) => Object.freeze({ ...m, locations: Object.freeze(m.locations.map((l) => Object.freeze({ start: l.start, end: l.end }))) })),
  );
  return Object.freeze({ ...layer, matches });
}

function layerToJson(layer: LayerResult): LayerJson {
  const json: LayerJson = {
    name: layer.name,
    passed: layer.passed,
    status: layer.status,
    latency: roundHalfEven(layer.latency, 4),
    details: layer.details,
  };
  if (layer.coverageReason) json.coverage_reason = layer.coverageReason;
  if (layer.matches !== undefined && layer.matches.length > 0) {
    json.matches = layer.matches.map((m) => ({
      segment: m.segment,
      reason: m.reason,
      explanation: m.explanation,
      locations: m.locations.map((l) => ({ start: l.start, end: l.end })),
    }));
  }
  return json;
}

function segmentToJson(segment: SegmentCoverage): SegmentJson {
  const json: SegmentJson = { index: segment.index, start: segment.start, end: segment.end, state: segment.state };
  if (segment.coverageReason !== null) json.coverage_reason = segment.coverageReason;
  return json;
}

/** What a verdict is minted from: its data fields, stated once on the class (the rest is computed from them). */
type VerdictFields = Omit<PipelineVerdict, "safeInput" | "isFor" | "exercised" | "toRecord" | "toDict" | "toJSON" | typeof inspect.custom>;

/** @internal Mints a verdict; only the pipeline module calls this. */
export function mintVerdict(input: string, fields: VerdictFields): PipelineVerdict {
  minting = true;
  try {
    const verdict = new PipelineVerdict(input, fields);
    genuine.add(verdict);
    return verdict;
  } finally {
    minting = false;
  }
}

/** True only for verdicts produced by this library's pipeline (not look-alikes). */
export function isGenuineVerdict(value: unknown): value is PipelineVerdict {
  return typeof value === "object" && value !== null && genuine.has(value as PipelineVerdict);
}
