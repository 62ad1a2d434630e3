// `screen`, the verb behind `little-canary screen`: a JSONL batch checked, the little-canary-batch/v1
// document streamed to the reporter's output, CI reports written, the summary returned.
import {
  canaryOutageWarning,
  canaryTarget,
  canaryReplyWarning,
  circuitOpenWarning,
  circuitOpenedNow,
  type AffectedItems,
  type CanaryTarget,
  unreadModelListProblem,
} from "../pipeline/canary-warning.js";
import type { ReaderLimits } from "../documents/reader-limits.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";
import { screenWithReports } from "../report/screen-reports.js";
import type { BreakerTrip } from "../pipeline/circuit-breaker.js";
import { reasonBreakdown, reasonList, type ReasonCounts } from "../pipeline/reason-tally.js";
import { batchExitCode, type BatchSummary } from "../screen/screen-batch.js";
import { resolveCanarySettings, type CanarySettings } from "./canary-settings.js";
import { resolveReportSettings, type ReportSettings } from "./report-settings.js";
import type { VerbIo } from "./reporter.js";

export { batchExitCode, type BatchSummary } from "../screen/screen-batch.js";
export { InputRefusedError } from "../screen/files.js";
export type { BatchState } from "../documents/schemas.js";

/** The settings of one `screen`, as plain values; the reader's limits (`maxItems` and `maxTotalBytes` 0: no limit). */
export interface ScreenOptions extends CanarySettings, ReportSettings, ReaderLimits {
  /** The JSONL file; absent: `io.stdin`. */
  readonly input?: string;
  concurrency: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
  /** Where the scratch files go (default: the OS temporary directory). */
  scratchDir?: string;
  /** A verdict cache file, or false / absent for none. */
  cache?: string | false;
  readonly io: VerbIo;
  /** Aborts the run (its scratch files are removed); the abort reason is thrown. */
  readonly signal?: AbortSignal;
}

/**
 * The warning lines a batch earns: the breaker opening; else one for items whose canary call
 * found the backend unreachable or timed out, and one for items whose reply could not be used
 * (each names its most common reason and counts every reason when there were several). Null when none.
 */
function screenCanaryWarning(summary: BatchSummary, trip: BreakerTrip | null, target: CanaryTarget): string | null {
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  if (trip !== null) {
    // The items whose own check failed (those that opened the breaker among them) are not screened either.
    const failedItems = summary.outage.affected + summary.failed.affected;
    const reasons = [...summary.outage.reasons, ...summary.failed.reasons];
    const failed = failedItems === 0 ? null : `${n(failedItems, "item")} whose check failed (${reasonList(reasons)})`;
    return circuitOpenWarning(target, trip, summary.notSent === 0 ? null : `${n(summary.notSent, "item")} of ${summary.total}`, failed);
  }
  // An item blocked by a check that did run is counted, since a part of it went unscreened, and
  // said to be blocked, so that the count does not read as that many items left unscreened.
  const blockedNote = (affected: number, blocked: number): string => {
    if (blocked === 0) return "";
    const which = blocked < affected ? `${blocked} of them` : affected === 1 ? "it is" : "all are";
    return ` (${which} blocked all the same)`;
  };
  const items = ({ affected, blocked, reasons }: { affected: number; blocked: number; reasons: ReasonCounts<string> }): AffectedItems => ({
    count: affected,
    words: `${n(affected, "item")} of ${summary.total}${reasonBreakdown(reasons)}${blockedNote(affected, blocked)}`,
    mixed: reasons.length > 1,
  });
  // The most common reason of each kind is the one named, with its fix; the others are counted
  // beside it. Outages and unusable replies each get their line.
  const outage = summary.outage.reasons[0]?.[0];
  const failed = summary.failed.reasons[0]?.[0];
  const lines = [
    outage === undefined ? "" : canaryOutageWarning(target, outage, items(summary.outage)),
    failed === undefined ? "" : canaryReplyWarning(target, failed, items(summary.failed)),
  ].join("");
  return lines === "" ? null : lines;
}

/** Screens a batch: the document goes to `io.reporter.output`, then a newline; returns its summary and the batch's exit code. */
export async function screen(options: ScreenOptions) {
  const { io } = options;
  const { reporter } = io;
  const built: { pipeline?: SecurityPipeline } = {};
  const { maxItems, maxItemBytes, maxTotalBytes, maxMetadataKeys, maxMetadataValueChars } = options;
  try {
    const { summary } = await screenWithReports({
      input: options.input ?? io.stdin,
      output: (chunk) => reporter.output(chunk),
      limits: { maxItems, maxItemBytes, maxTotalBytes, maxMetadataKeys, maxMetadataValueChars },
      // Built (and so validated) before reading: a bad setting or environment refuses first.
      pipeline: () => (built.pipeline = new SecurityPipeline(resolveCanarySettings(options, { ...io, warn: (message) => reporter.warn(message) }))),
      beforeRead: () => (options.input === undefined ? reporter.readingStdin() : undefined),
      beforeOutput: async (totals, circuitOpen) => {
        reporter.finishProgress();
        const warning = screenCanaryWarning(totals, circuitOpen, canaryTarget(built.pipeline as SecurityPipeline));
        if (warning !== null) await reporter.diagnostic(warning);
        const problem = unreadModelListProblem(built.pipeline, warning !== null);
        if (problem !== null) reporter.warn(problem);
      },
      concurrency: options.concurrency,
      ...(options.maxCanaryFailures !== undefined ? { maxCanaryFailures: options.maxCanaryFailures } : {}),
      ...(options.scratchDir !== undefined ? { scratchDir: options.scratchDir } : {}),
      cacheFile: typeof options.cache === "string" ? options.cache : null,
      onCacheNote: (message) => reporter.warn(message),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onProgress: (done, total) => reporter.progress(done, total),
      onCircuitOpen: (trip) => reporter.warn(circuitOpenedNow(trip, "items")),
      cwd: io.cwd,
      reports: resolveReportSettings(options, io),
    });
    await reporter.output("\n");
    if (summary.total === 0) await reporter.diagnostic("warning: no items in input\n");
    return { summary, exitCode: batchExitCode(summary) };
  } finally {
    reporter.finishProgress();
  }
}
