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
import { CanaryCircuitBreaker, CIRCUIT_OPEN_ERROR, DEFAULT_MAX_CANARY_FAILURES, observeCanary, type BreakerTrip } from "../../src/schedule/circuit-breaker.js";
import { canaryOutageWarning, canaryTarget, circuitOpenWarning, type CanaryTarget } from "../../src/config/canary-warning.js";
import type { BatchDocument } from "../../src/manifest/schemas.js";
import type { CliIo } from "../io.js";
import { hintIfTerminalStdin, writeOut } from "../io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "../options.js";
import { createProgress } from "../progress.js";

export interface ScreenFlags extends CanaryFlags {
  maxItems: number;
  maxItemBytes: number;
  maxTotalBytes: number;
  concurrency: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
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
  if (input === "-") await hintIfTerminalStdin(io, "JSONL", "pass FILE");
  const source = input === "-" ? fromNodeStream(io.stdin) : fromFile(resolve(io.cwd, input));
  // The batch is refused on any record-level problem, so reading stops at the first one.
  const outcome = await readRecords(source, { kind: "screen", limits, stopOnRecordProblem: true });
  if (!outcome.ok) throw new InputRefusedError(outcome.refusal.message);
  const items = itemsFromRecords(outcome.records);

  const controller = new AbortController();
  const unregister = io.onSignal(() => controller.abort(new InputRefusedError("interrupted; nothing printed")));
  const progress = createProgress(io, "screen");
  const breaker = new CanaryCircuitBreaker(flags.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES);
  try {
    const document = await screenItems(items, pipeline, {
      concurrency: flags.concurrency,
      signal: controller.signal,
      onProgress: (done, total) => progress.update(done, total),
      breaker,
    });
    progress.finish();
    const warning = screenCanaryWarning(document, breaker.trip, canaryTarget(pipeline));
    if (warning !== null) await writeOut(io.stderr, warning);
    await writeOut(io.stdout, `${serializeBatch(document)}\n`);
    if (document.total === 0) await writeOut(io.stderr, "warning: no items in input\n");
    return batchExitCode(document);
  } finally {
    progress.finish();
    unregister();
  }
}

/**
 * The one warning line a batch earns: the breaker opening, else items whose canary call found
 * the backend unreachable or timed out (the first such reason is named). Null when neither.
 */
export function screenCanaryWarning(document: BatchDocument, trip: BreakerTrip | null, target: CanaryTarget): string | null {
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  if (trip !== null) {
    const notSent = document.items.filter((item) => item.error === CIRCUIT_OPEN_ERROR).length;
    return circuitOpenWarning(target, trip, `${n(notSent, "item")} of ${document.total}`);
  }
  let first: "unavailable" | "timeout" | null = null;
  let affected = 0;
  for (const item of document.items) {
    if (item.verdict === undefined) continue;
    const seen = observeCanary(item.verdict);
    if (seen.kind !== "outage") continue;
    first ??= seen.reason;
    affected++;
  }
  return first === null ? null : canaryOutageWarning(target, first, `${n(affected, "item")} of ${document.total}`);
}
