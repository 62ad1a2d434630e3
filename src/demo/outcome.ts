// What a demo run concluded, and the fixed mapping from that to `degraded`, the analysis fields and
// the exit code (docs/demo.md): 0 verified, 1 a complete run that disagrees, 2 not inspectable.
import type { DemoCase } from "./case-analysis.js";

interface StatusRow {
  readonly degraded: boolean;
  readonly analysisMethod: "regex" | "none";
  readonly analysisStatus: "exercised" | "failed" | "not_applicable";
  readonly exitCode: 0 | 1 | 2;
}

/** What a demo run concluded (the status line it prints), and what that means for its fields and exit code. */
const STATUS_ROWS = {
  "REPLAY VERIFIED": { degraded: false, analysisMethod: "regex", analysisStatus: "exercised", exitCode: 0 },
  "REPLAY UNAVAILABLE": { degraded: true, analysisMethod: "none", analysisStatus: "not_applicable", exitCode: 2 },
  // A capture whose hash does not match is refused before any analysis: exit 2, like
  // any input that could not be inspected, rather than 1, which means "inspected and disagrees".
  "REPLAY INTEGRITY FAILURE": { degraded: false, analysisMethod: "none", analysisStatus: "failed", exitCode: 2 },
  "REPLAY LOAD FAILURE": { degraded: true, analysisMethod: "none", analysisStatus: "not_applicable", exitCode: 2 },
  "REPLAY EXPECTATION FAILURE": { degraded: false, analysisMethod: "regex", analysisStatus: "failed", exitCode: 1 },
  "REPLAY ANALYSIS FAILURE": { degraded: true, analysisMethod: "regex", analysisStatus: "failed", exitCode: 2 },
  "DEGRADED / UNEXERCISED": { degraded: true, analysisMethod: "none", analysisStatus: "not_applicable", exitCode: 2 },
  "DEGRADED / INCOMPLETE": { degraded: true, analysisMethod: "none", analysisStatus: "not_applicable", exitCode: 2 },
  "LIVE CONTRAST VERIFIED": { degraded: false, analysisMethod: "regex", analysisStatus: "exercised", exitCode: 0 },
  "NO CONTRAST": { degraded: false, analysisMethod: "regex", analysisStatus: "exercised", exitCode: 1 },
} as const satisfies Record<string, StatusRow>;
type CommandStatus = keyof typeof STATUS_ROWS;

/** A demo run's conclusion with its cases, analysis fields and exit code. */
export interface DemoOutcome {
  readonly runKind: "REPLAY" | "LIVE";
  readonly status: CommandStatus;
  readonly cases: readonly DemoCase[];
  /** Fixed failure detail, or null. */
  readonly error: string | null;
  /** Run-kind specific fields of the JSON document, in wire names. */
  readonly fields: Readonly<Record<string, unknown>>;
}

export function statusRow(outcome: DemoOutcome): StatusRow {
  const row: StatusRow = STATUS_ROWS[outcome.status];
  // An incomplete live run says regex/failed once any reply reached the analyzer.
  if (outcome.status === "DEGRADED / INCOMPLETE" && outcome.cases.some((c) => c.canary_status === "exercised")) {
    return { ...row, analysisMethod: "regex", analysisStatus: "failed" };
  }
  return row;
}

/** What became of `demo --live --record PATH`. */
export type RecordResult = "not_requested" | "recorded" | "not_recorded" | "write_failed";

/**
 * The one exit code of a demo run (the JSON document's `exit_code` and the shell's): the outcome's,
 * raised to 2 when a capture was asked for and not written (the run did not deliver what was asked).
 */
export function demoExitCode(outcome: DemoOutcome, record: RecordResult = "not_requested"): 0 | 1 | 2 {
  if (record === "not_recorded" || record === "write_failed") return 2;
  return statusRow(outcome).exitCode;
}
