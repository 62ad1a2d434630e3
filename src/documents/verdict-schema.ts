// The serialized verdict: the only form of a verdict that leaves the library
// (CLI output, /check responses, batch and manifest documents). It never carries the input,
// the canary reply, prompts or evidence excerpts.
import { z } from "zod";

const finite = z.number().refine(Number.isFinite, "must be a finite number");

/**
 * How much of a text the canary inspected: every window (`complete`), some (`partial`) or none
 * (`none`). The same words, counted the same way, as a manifest record's `coverage`.
 */
export const COVERAGES = ["complete", "partial", "none"] as const;
/** One of COVERAGES. */
export type Coverage = (typeof COVERAGES)[number];

const offset = z.number().int().min(0);

/** Where a structural reason matched: code-point offsets `[start, end)` into the window's original text. */
const MatchLocationJsonSchema = z.strictObject({ start: offset, end: offset }).refine((l) => l.start <= l.end, "a location's start must not be after its end");

/**
 * One structural reason in one window of the text: the reason label, the rule's fixed one-line
 * explanation and up to three locations. Never the matched text.
 */
const LayerMatchJsonSchema = z.strictObject({
  /** Index into the verdict's `segments` when the text was screened in windows, else 0. */
  segment: offset,
  reason: z.string().min(1),
  explanation: z.string().min(1),
  locations: z.array(MatchLocationJsonSchema).min(1).max(3),
});

const LayerJsonSchema = z.strictObject({
  name: z.enum(["structural_filter", "canary_probe"]),
  passed: z.boolean().nullable(),
  status: z.enum(["passed", "blocked", "failed", "skipped"]),
  latency: finite,
  details: z.string(),
  coverage_reason: z.string().min(1).optional(),
  /** Structural layer only, present when it found reasons: each one and where it matched. */
  matches: z.array(LayerMatchJsonSchema).min(1).optional(),
});

/** One window of a long text: its span in code points, its state and why coverage failed. */
const SegmentJsonSchema = z.strictObject({
  index: offset,
  start: offset,
  end: offset,
  state: z.enum(["pass", "flag", "block", "degraded", "unexercised"]),
  coverage_reason: z.string().min(1).optional(),
});

const AdvisoryJsonSchema = z.strictObject({
  flagged: z.boolean(),
  severity: z.enum(["none", "low", "medium", "high"]),
  signals: z.array(z.string()),
  message: z.string(),
});

/** Verdict as stored in batch and manifest documents (no `safe_input`). */
export const VerdictJsonSchema = z.strictObject({
  safe: z.boolean(),
  total_latency: finite,
  blocked_by: z.enum(["structural_filter", "canary_probe", "fail_closed"]).nullable(),
  summary: z.string(),
  canary_risk_score: finite.min(0).max(1).nullable(),
  degraded: z.boolean(),
  canary_status: z.enum(["exercised", "failed", "disabled", "skipped_after_block"]),
  analysis_method: z.enum(["regex", "llm_judge", "none"]),
  analysis_status: z.enum(["exercised", "failed", "not_applicable"]),
  layers: z.array(LayerJsonSchema),
  advisory: AdvisoryJsonSchema,
  /** Present only for a text screened in windows (longer than the pipeline's maxInputLength). */
  segments: z.array(SegmentJsonSchema).min(2).optional(),
});

/**
 * Verdict as printed by `check` and answered by `/check`: adds `safe_input` and `coverage`. Only
 * this wire form carries `coverage`: the stored form (VerdictJsonSchema) is embedded in the
 * published batch and manifest schemas, where a record's own `coverage` says the same.
 */
export const VerdictWireSchema = VerdictJsonSchema.extend({ safe_input: z.string(), coverage: z.enum(COVERAGES) });

/** One serialized layer of a verdict. */
export type LayerJson = z.infer<typeof LayerJsonSchema>;
export type SegmentJson = z.infer<typeof SegmentJsonSchema>;
/** A serialized advisory. */
export type AdvisoryJson = z.infer<typeof AdvisoryJsonSchema>;
/** The serialized verdict, as validated. */
export type VerdictJson = z.infer<typeof VerdictJsonSchema>;
/** The serialized verdict in wire key order, as printed by `check` and `/check`. */
export type VerdictWire = z.infer<typeof VerdictWireSchema>;
