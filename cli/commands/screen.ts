// `little-canary screen [FILE|-]`: screen a JSONL batch for CI and print one
// little-canary-batch/v1 document. Refusals print `error: …` on stderr and nothing on stdout.
import { resolve } from "node:path";
import { LittleCanaryError } from "../../src/errors.js";
import { DEFAULT_READER_LIMITS, validateReaderLimits, type ReaderLimits } from "../../src/jsonl/limits.js";
import { readRecords } from "../../src/jsonl/read.js";
import { fromFile, fromNodeStream } from "../../src/jsonl/sources.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { itemsFromRecords } from "../../src/screen/admit.js";
import { batchExitCode, screenItems, serializeBatch } from "../../src/screen/screen-batch.js";
import type { CliIo } from "../io.js";
import { writeOut } from "../io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "../options.js";
import { createProgress } from "../progress.js";

export interface ScreenFlags extends CanaryFlags {
  maxItems: number;
  maxItemBytes: number;
  maxTotalBytes: number;
  concurrency: number;
}

export class InputRefusedError extends LittleCanaryError {
  override readonly name = "InputRefusedError";
  constructor(message: string) {
    super("input_refused", message);
  }
}

export async function runScreen(input: string, flags: ScreenFlags, io: CliIo): Promise<number> {
  const limits: ReaderLimits = validateReaderLimits({
    ...DEFAULT_READER_LIMITS,
    maxItems: flags.maxItems,
    maxItemBytes: flags.maxItemBytes,
    maxTotalBytes: flags.maxTotalBytes,
  });
  // Build (and so validate) the pipeline before reading: a bad flag or environment refuses first.
  const pipeline = new SecurityPipeline(pipelineOptionsFromFlags(flags, io));
  const source = input === "-" ? fromNodeStream(io.stdin) : fromFile(resolve(io.cwd, input));
  // The batch is refused on any record-level problem, so reading stops at the first one.
  const outcome = await readRecords(source, { kind: "screen", limits, stopOnRecordProblem: true });
  if (!outcome.ok) throw new InputRefusedError(outcome.refusal.message);
  const items = itemsFromRecords(outcome.records);

  const controller = new AbortController();
  const unregister = io.onSignal(() => controller.abort(new InputRefusedError("interrupted; nothing printed")));
  const progress = createProgress(io, "screen");
  try {
    const document = await screenItems(items, pipeline, {
      concurrency: flags.concurrency,
      signal: controller.signal,
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.finish();
    await writeOut(io.stdout, `${serializeBatch(document)}\n`);
    if (document.total === 0) await writeOut(io.stderr, "warning: no items in input\n");
    return batchExitCode(document);
  } finally {
    progress.finish();
    unregister();
  }
}
