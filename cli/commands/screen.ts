// `little-canary screen [FILE|-]`: flags → `screenWithReports` (validates the whole batch,
// screens it and streams the document) → one little-canary-batch/v1 document on stdout → exit
// code. Refusals print `error: …` on stderr and nothing on stdout. The library is imported when
// the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import type { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { SCREEN_HELP } from "../help.js";
import { hintIfTerminalStdin, writeOut, type CliIo } from "../io.js";
import { createProgress } from "../progress.js";
import { reportOptionsFromFlags } from "../report-flags.js";
import type { RunState } from "../run-state.js";
import { addScreenFlags, type ScreenFlags } from "../screen-flags.js";
import { refuseSharedFiles } from "../shared-files.js";

/** Defines `screen` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("screen")
    .description("Screen a JSONL batch (one JSON string or {text, id?, source?, metadata?} per line) and print a little-canary-batch/v1 document.")
    .argument("[input]", "JSONL file, or - for stdin", "-");
  return addScreenFlags(command)
    .addHelpText("after", SCREEN_HELP)
    .action(async (input: string, flags: ScreenFlags) => {
      state.exitCode = await run(input, flags, io);
    });
}

/** Screens a batch and streams its document to stdout; returns the exit code. */
export async function run(input: string, flags: ScreenFlags, io: CliIo): Promise<number> {
  const [{ canaryTarget }, pipelines, { batchExitCode }, { InputRefusedError }, { screenWithReports }, { pipelineOptionsFromFlags }, output] =
    await Promise.all([
      import("../../src/pipeline/canary-warning.js"),
      import("../../src/pipeline/pipeline.js"),
      import("../../src/screen/screen-batch.js"),
      import("../../src/screen/files.js"),
      import("../../src/report/screen-reports.js"),
      import("../options.js"),
      import("../screen-output.js"),
    ]);
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
      pipeline: () => (built.pipeline = new pipelines.SecurityPipeline(pipelineOptionsFromFlags(flags, io))),
      beforeRead: () => (input === "-" ? hintIfTerminalStdin(io, "JSONL", "pass FILE") : undefined),
      beforeOutput: async (totals, circuitOpen) => {
        progress.finish();
        const warning = output.screenCanaryWarning(totals, circuitOpen, canaryTarget(built.pipeline as SecurityPipeline));
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
    await writeOut(io.stderr, output.formatScreenSummary(summary));
    return batchExitCode(summary);
  } finally {
    progress.finish();
    unregister();
  }
}
