// `little-canary screen [FILE|-]`: flags → `screenFile` (validates the whole batch, screens it
// and streams the document) → one little-canary-batch/v1 document on stdout → exit code.
// Refusals print `error: …` on stderr and nothing on stdout.
import { canaryTarget } from "../../src/config/canary-warning.js";
import type { ReaderLimits } from "../../src/documents/reader-limits.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { batchExitCode } from "../../src/screen/screen-batch.js";
import { InputRefusedError } from "../../src/screen/files.js";
import { screenWithReports } from "../../src/report/screen-reports.js";
import type { CliIo } from "../io.js";
import { hintIfTerminalStdin, writeOut } from "../io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "../options.js";
import { createProgress } from "../progress.js";
import { reportOptionsFromFlags, type ReportFlags } from "../report-flags.js";
import { formatScreenSummary, screenCanaryWarning } from "../screen-output.js";
import { refuseSharedFiles } from "../shared-files.js";

export { screenCanaryWarning } from "../screen-output.js";
export { InputRefusedError };

export interface ScreenFlags extends CanaryFlags, ReportFlags, Pick<ReaderLimits, "maxMetadataKeys" | "maxMetadataValueChars"> {
  /** 0: no limit. */
  maxItems: number;
  maxItemBytes: number;
  /** 0: no limit. */
  maxTotalBytes: number;
  concurrency: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
  /** Where the scratch files go (default: the OS temporary directory). */
  scratchDir?: string;
  /** `--cache PATH` (a string) or `--no-cache` (false). */
  cache?: string | false;
}

export async function runScreen(input: string, flags: ScreenFlags, io: CliIo): Promise<number> {
  await refuseSharedFiles(input, flags, io);
  const controller = new AbortController();
  // From the start: an interrupt while reading must also remove the scratch files.
  const unregister = io.onSignal(() => controller.abort(new InputRefusedError("interrupted; nothing printed")));
  const progress = createProgress(io, "screen");
  const built: { pipeline?: SecurityPipeline } = {};
  const { maxItems, maxItemBytes, maxTotalBytes, maxMetadataKeys, maxMetadataValueChars } = flags;
  try {
    const { summary } = await screenWithReports({
      input: input === "-" ? io.stdin : input,
      output: (chunk) => writeOut(io.stdout, chunk),
      limits: { maxItems, maxItemBytes, maxTotalBytes, maxMetadataKeys, maxMetadataValueChars },
      // Built (and so validated) before reading: a bad flag or environment refuses first.
      pipeline: () => (built.pipeline = new SecurityPipeline(pipelineOptionsFromFlags(flags, io))),
      beforeRead: () => (input === "-" ? hintIfTerminalStdin(io, "JSONL", "pass FILE") : undefined),
      beforeOutput: async (totals, circuitOpen) => {
        progress.finish();
        const warning = screenCanaryWarning(totals, circuitOpen, canaryTarget(built.pipeline as SecurityPipeline));
        if (warning !== null) await writeOut(io.stderr, warning);
      },
      concurrency: flags.concurrency,
      ...(flags.maxCanaryFailures !== undefined ? { maxCanaryFailures: flags.maxCanaryFailures } : {}),
      ...(flags.scratchDir !== undefined ? { scratchDir: flags.scratchDir } : {}),
      cacheFile: typeof flags.cache === "string" ? flags.cache : null,
      onCacheNote: (message) => void io.stderr.write(`warning: ${message}\n`),
      signal: controller.signal,
      onProgress: (done, total) => progress.update(done, total),
      cwd: io.cwd,
      reports: reportOptionsFromFlags(flags, io),
    });
    await writeOut(io.stdout, "\n");
    if (summary.total === 0) await writeOut(io.stderr, "warning: no items in input\n");
    // After the progress line was cleared (beforeOutput): what the document says, in one line.
    await writeOut(io.stderr, formatScreenSummary(summary));
    return batchExitCode(summary);
  } finally {
    progress.finish();
    unregister();
  }
}
