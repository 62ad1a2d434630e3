// `little-canary screen [FILE|-]`: flags → `screenFile` (reads, admits and screens the batch)
// → one little-canary-batch/v1 document on stdout → exit code. Refusals print `error: …` on
// stderr and nothing on stdout.
import { canaryTarget } from "../../src/config/canary-warning.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { batchExitCode, serializeBatch } from "../../src/screen/screen-batch.js";
import { InputRefusedError, screenFile } from "../../src/screen/files.js";
import type { CliIo } from "../io.js";
import { hintIfTerminalStdin, writeOut } from "../io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "../options.js";
import { createProgress } from "../progress.js";
import { screenCanaryWarning } from "../screen-output.js";

export { screenCanaryWarning } from "../screen-output.js";
export { InputRefusedError };

export interface ScreenFlags extends CanaryFlags {
  maxItems: number;
  maxItemBytes: number;
  maxTotalBytes: number;
  concurrency: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
}

export async function runScreen(input: string, flags: ScreenFlags, io: CliIo): Promise<number> {
  const controller = new AbortController();
  let unregister = (): void => undefined;
  const progress = createProgress(io, "screen");
  const built: { pipeline?: SecurityPipeline } = {};
  try {
    const { document, circuitOpen } = await screenFile({
      input: input === "-" ? io.stdin : input,
      limits: { maxItems: flags.maxItems, maxItemBytes: flags.maxItemBytes, maxTotalBytes: flags.maxTotalBytes },
      // Built (and so validated) before reading: a bad flag or environment refuses first.
      pipeline: () => (built.pipeline = new SecurityPipeline(pipelineOptionsFromFlags(flags, io))),
      beforeRead: () => (input === "-" ? hintIfTerminalStdin(io, "JSONL", "pass FILE") : undefined),
      // An interrupt is handled from the first check on (reading is not interruptible work).
      afterRead: () => {
        unregister = io.onSignal(() => controller.abort(new InputRefusedError("interrupted; nothing printed")));
      },
      concurrency: flags.concurrency,
      ...(flags.maxCanaryFailures !== undefined ? { maxCanaryFailures: flags.maxCanaryFailures } : {}),
      signal: controller.signal,
      onProgress: (done, total) => progress.update(done, total),
      cwd: io.cwd,
    });
    progress.finish();
    const warning = screenCanaryWarning(document, circuitOpen, canaryTarget(built.pipeline as SecurityPipeline));
    if (warning !== null) await writeOut(io.stderr, warning);
    await writeOut(io.stdout, `${serializeBatch(document)}\n`);
    if (document.total === 0) await writeOut(io.stderr, "warning: no items in input\n");
    return batchExitCode(document);
  } finally {
    progress.finish();
    unregister();
  }
}
