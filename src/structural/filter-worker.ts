// The structural filter's worker thread (offload.ts starts it): a StructuralFilter built from the
// main thread's filter settings (its compiled custom patterns, so both compile the same ones),
// answering `[id, text]` with `[id, reasons, matches]`, or `[id, null]` when the check
// threw (the main thread then checks the text itself and meets the same error there). It holds
// no state between texts, so which thread checked a text never changes what was found.
import { parentPort, workerData } from "node:worker_threads";
import { StructuralFilter } from "./filter.js";
import type { StructuralMatch } from "./locate.js";

/** What the worker is started with: the main filter's maximum length and compiled custom patterns. */
export interface FilterWorkerData {
  readonly maxInputLength: number;
  readonly customPatterns: ReadonlyArray<{ readonly pattern: RegExp; readonly reason: string }>;
}

/** One answer: the reasons and matches found, or null reasons when the check threw. */
export type FilterWorkerReply = readonly [id: number, reasons: readonly string[], matches: readonly StructuralMatch[]] | readonly [id: number, reasons: null];

if (parentPort !== null) {
  const port = parentPort;
  const filter = new StructuralFilter(workerData as FilterWorkerData);
  port.on("message", ([id, text]: readonly [number, string]) => {
    let reply: FilterWorkerReply;
    try {
      const found = filter.check(text);
      reply = [id, found.reasons, found.matches];
    } catch {
      reply = [id, null];
    }
    port.postMessage(reply);
  });
}
