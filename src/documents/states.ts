// The closed vocabularies of a record's outcome that every document and rule shares, in their
// fixed order (counts and documents list them in it). Kept apart from schemas.ts so that modules
// schemas.ts imports (allowlist.ts) name them without an import cycle, and so that the verdict
// path (pipeline segments → record state) gets them without building every zod schema at start-up.

/** Every reason a record can be held, in their fixed order. */
export const HOLD_REASONS = ["malformed", "over_budget", "blocked", "flagged", "degraded", "unexercised", "error", "incomplete"] as const;
/** One reason a record is held. */
export type HoldReason = (typeof HOLD_REASONS)[number];

/** Every state one checked (or unchecked) segment can end in, in their fixed order. */
export const SEGMENT_STATES = ["pass", "flag", "block", "degraded", "unexercised", "error", "not_checked"] as const;
/** The state of one segment. */
export type SegmentState = (typeof SEGMENT_STATES)[number];
/** The states whose segment carries a classified verdict: its text went through the pipeline. */
export const CLASSIFIED_STATES: ReadonlySet<SegmentState> = new Set<SegmentState>(["pass", "flag", "block", "degraded", "unexercised"]);
