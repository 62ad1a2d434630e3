// A CI report format (SARIF, JUnit) says only what an item's entry is and what frames them all:
// ci-reports.ts spools each item's entry, as the item finishes, to a scratch file beside the
// report (memory bounded by one entry), and frames the document around them once the run is over.
import type { CanonicalFrame } from "../core/canonical.js";
import type { ReportItem } from "./report-item.js";

/** Run-level facts a report is framed with (never item text). */
export interface ReportRun {
  /** Items or records read. */
  readonly total: number;
  /** Extra run properties (the command, the manifest's SHA-256 …): strings and numbers only. */
  readonly properties: Readonly<Record<string, string | number>>;
  /** When the run started and ended. */
  readonly startedAt: Date;
  readonly endedAt: Date;
}

/** One report format: the entry of each item, then the frame around them all. */
export interface ReportFormat {
  /** Scratch files of this format are named with it (`.<report>.<random>.<label>.spool`). */
  readonly label: string;
  /** The text appended for `item`, the next in input order, separator included; "" adds nothing. */
  entry(item: ReportItem): string;
  /** The document's text before and after the entries, once every item was added. */
  frame(run: ReportRun): CanonicalFrame;
}
