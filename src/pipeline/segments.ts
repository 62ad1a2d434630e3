// Long texts (docs/canary.md): length is never a detection. A text longer than
// `maxInputLength` code points is cut with the ingest segmenter (segment/spans.ts) into windows of
// `maxInputLength` that overlap by `segmentOverlap`, each window is screened like a short text,
// and the verdict is the worst window's: a block anywhere blocks, a failed canary anywhere is
// degraded, and every window's own state and coverage is reported in `segments`.
import { SecurityAdvisory } from "./advisory.js";
import type { AnalysisStatus, CanaryStatus } from "../analysis/types.js";
import type { LayerName, LayerResult, LayerStatus, PipelineVerdict, SegmentState } from "./verdict.js";
import { coverageOf } from "../documents/record-state.js";
import type { Coverage } from "../documents/verdict-schema.js";

/**
 * What one screened text (or window) contributed, before policy and summary are applied; a text
 * screened in windows also carries its `segments` and `coverage` (see verdictCoverage).
 */
export interface FinishState
  extends Pick<PipelineVerdict, "blockedBy" | "advisory" | "degraded" | "canaryStatus" | "analysisMethod" | "analysisStatus">,
    Partial<Pick<PipelineVerdict, "promptEvalCount" | "segments" | "coverage">> {
  readonly layers: LayerResult[];
  readonly risk: number | null;
  readonly summaryOverride?: string;
}

/**
 * The canary inspected this window: it answered, its reply was analysed, nothing degraded. The
 * rule that classify.ts applies to a serialized segment verdict when ingest counts coverage.
 */
function windowExercised(state: FinishState): boolean {
  return !state.degraded && state.canaryStatus === "exercised" && state.analysisStatus === "exercised" && state.risk !== null;
}

/** Coverage of a text from its windows' states (one state for a short text). */
export function verdictCoverage(states: readonly FinishState[]): Coverage {
  return coverageOf(states.filter(windowExercised).length, states.length);
}

/** One screened window: its code-point span in the whole text and what its screen found. */
export interface ScreenedSegment {
  readonly start: number;
  readonly end: number;
  readonly state: FinishState;
}

/** The window's own state, by the rule screen uses for batch items (a denial is not a detection). */
function segmentState(state: FinishState): SegmentState {
  if (state.blockedBy !== null) return "block";
  if (state.degraded) return "degraded";
  if (state.advisory.flagged) return "flag";
  if (state.canaryStatus !== "exercised" || state.analysisStatus !== "exercised") return "unexercised";
  return "pass";
}

const LAYER_RANK: Readonly<Record<LayerStatus, number>> = { passed: 0, skipped: 1, failed: 2, blocked: 3 };
const CANARY_RANK: Readonly<Record<CanaryStatus, number>> = { exercised: 0, disabled: 1, skipped_after_block: 2, failed: 3 };

/** One layer for the whole text: the worst window's layer, with summed latency and every signal. */
function combineLayer(name: LayerName, layers: readonly LayerResult[]): LayerResult | null {
  const same = layers.filter((layer) => layer.name === name);
  const worst = same.reduce<LayerResult | null>(
    (current, layer) => (current === null || LAYER_RANK[layer.status] > LAYER_RANK[current.status] ? layer : current),
    null,
  );
  if (worst === null) return null;
  const matches = same.flatMap((layer) => layer.matches ?? []);
  const { matches: _worstOnly, ...rest } = worst;
  return {
    ...rest,
    latency: same.reduce((sum, layer) => sum + layer.latency, 0),
    signals: [...new Set(same.flatMap((layer) => layer.signals))],
    ...(matches.length > 0 ? { matches } : {}),
  };
}

/** The state of a whole text from its windows, in order (at least one). */
export function combineSegments(screened: readonly ScreenedSegment[]): FinishState {
  const states = screened.map((segment) => segment.state);
  // Each window's structural matches are numbered by the window they were found in.
  const allLayers = states.flatMap((state, index) =>
    state.layers.map((layer) => (layer.matches === undefined ? layer : { ...layer, matches: layer.matches.map((m) => ({ ...m, segment: index })) })),
  );
  const layers = (["structural_filter", "canary_probe"] as const).flatMap((name) => combineLayer(name, allLayers) ?? []);
  const blockedAt = states.findIndex((state) => state.blockedBy !== null);
  const blocked = blockedAt >= 0 ? (states[blockedAt] as FinishState) : null;
  const canaryStatus = states.reduce<CanaryStatus>(
    (worst, state) => (CANARY_RANK[state.canaryStatus] > CANARY_RANK[worst] ? state.canaryStatus : worst),
    "exercised",
  );
  const analysisStatus: AnalysisStatus = states.every((state) => state.analysisStatus === "exercised")
    ? "exercised"
    : states.some((state) => state.analysisStatus === "failed")
      ? "failed"
      : "not_applicable";
  const risks = states.map((state) => state.risk).filter((risk): risk is number => risk !== null);
  const total = screened.length;
  return {
    layers,
    blockedBy: blocked?.blockedBy ?? null,
    advisory: states.reduce((merged, state) => SecurityAdvisory.merge(merged, state.advisory), SecurityAdvisory.none()),
    degraded: states.some((state) => state.degraded),
    canaryStatus,
    analysisMethod: states.find((state) => state.analysisMethod !== "none")?.analysisMethod ?? "none",
    analysisStatus,
    risk: risks.length > 0 ? Math.max(...risks) : null,
    ...(blocked?.summaryOverride !== undefined ? { summaryOverride: `${blocked.summaryOverride} (segment ${blockedAt + 1} of ${total})` } : {}),
    promptEvalCount: null,
    coverage: verdictCoverage(states),
    segments: screened.map((segment, index) => {
      const coverageReason = segment.state.layers.find((layer) => layer.name === "canary_probe")?.coverageReason ?? null;
      return {
        index,
        start: segment.start,
        end: segment.end,
        state: segmentState(segment.state),
        coverageReason,
      };
    }),
  };
}
