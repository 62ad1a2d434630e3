// Types for classify.mjs (the dependency-free twin of src/integrations/classify.ts).
export type HostDecision = "allow" | "warn" | "deny" | "unscreened";
export type FailureMode = "allow" | "deny";
export interface Classified {
  readonly decision: HostDecision;
  readonly cause: null | "unavailable" | "incomplete";
  readonly reason: string | null;
  readonly flagged: boolean;
}
export interface HostClassification extends Classified {
  readonly block: boolean;
  readonly failureMode: FailureMode;
}
export declare const FAILURE_MODES: readonly FailureMode[];
export declare const FAILURE_MODE_ENV: "LITTLE_CANARY_FAILURE_MODE";
export declare const INVALID_FAILURE_MODE: string;
export declare const REASON_MISSING_FIELDS: string;
export declare const REASON_NOT_EXERCISED: string;
export declare function parseFailureMode(raw: unknown): { ok: true; mode: FailureMode } | { ok: false; error: string };
export declare function classifyVerdict(verdict: unknown): Classified;
export declare function classifyForHost(verdict: unknown, options: { failureMode: FailureMode }): HostClassification;
export declare function unscreenedForHost(reason: string, options: { failureMode: FailureMode }): HostClassification;
