// `screen` with CI reports: `screenFile` exactly as without them (the same bytes on `output`), each
// finished item also given to the reports, which are written before the document is copied out,
// so a report that cannot be written fails the run before anything reaches `output`.
import { hasUnscreenedPart } from "../screen/check-item.js";
import { screenFile, type ScreenFileOptions, type ScreenFileResult } from "../screen/files.js";
import { CiReports, wantsReports, type CiReportOptions } from "./ci-reports.js";
import { reportItemFromBatch } from "./report-item.js";

/** Options of `screenWithReports`: those of `screenFile` and the reports wanted. */
export interface ScreenWithReportsOptions extends ScreenFileOptions {
  readonly reports?: CiReportOptions;
}

/** `screenFile`, also writing the requested CI reports (SARIF, JUnit, GitHub annotations and summary). */
export async function screenWithReports(options: ScreenWithReportsOptions): Promise<ScreenFileResult> {
  const { reports: wanted, ...screen } = options;
  if (!wantsReports(wanted)) return screenFile(screen);
  const input = typeof options.input === "string" ? options.input : null;
  const reports = await CiReports.open(wanted as CiReportOptions, input, options.cwd ?? process.cwd());
  try {
    return await screenFile({
      ...screen,
      onItem: async (item, line, checked) => {
        await reports.add(reportItemFromBatch(item, line, { unscreenedPart: hasUnscreenedPart(checked), decidedBy: checked.decidedBy }));
        await options.onItem?.(item, line, checked);
      },
      beforeOutput: async (summary, circuitOpen) => {
        await reports.finish({ command: "screen", total: summary.total, counts: summary.counts });
        await options.beforeOutput?.(summary, circuitOpen);
      },
    });
  } finally {
    await reports.remove();
  }
}
