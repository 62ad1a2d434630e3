// Every reason a record can be held, without the documents' zod schemas: the verdict path
// (pipeline segments → record state) needs the list, and `check` must not build every schema
// at start-up to get it. schemas.ts re-exports it beside the schemas that use it.

/** Every reason a record can be held, in their fixed order. */
export const HOLD_REASONS = ["malformed", "over_budget", "blocked", "flagged", "degraded", "unexercised", "error", "incomplete"] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];
