// The record prefetch's worker thread (record-prefetch.ts starts it): its own connection to the
// verdict cache file, batches of planned records in, their ready entries (record-prefetch-batch.ts)
// out as transferred bytes. It only reads. On any failure it reports the failure's name and
// answers nothing more; the run then looks up the rest itself, and meets the same failure there
// if the failure concerns its own identity.
import { parentPort, workerData } from "node:worker_threads";
import { VerdictCache } from "../cache/verdict-cache.js";
import type { IngestPolicy } from "../documents/policy.js";
import { prefetchBatch, type PrefetchItem } from "./record-prefetch-batch.js";

/** What the worker is started with. */
export interface PrefetchWorkerData {
  readonly cachePath: string;
  readonly policy: IngestPolicy;
}

/** A message from the worker: one batch answered, or the failure that stopped it. */
export type PrefetchWorkerReply = { readonly items: number; readonly entries: number; readonly lines: Uint8Array } | { readonly failed: string };

if (parentPort !== null) {
  const port = parentPort;
  const data = workerData as PrefetchWorkerData;
  let cache: VerdictCache | null = null;
  let failed = false;
  port.on("message", (items: readonly PrefetchItem[]) => {
    if (failed) return;
    try {
      cache ??= VerdictCache.open(data.cachePath, { mustExist: true });
      const { lines, entries } = prefetchBatch(cache, items, data.policy);
      const bytes = new Uint8Array(lines.buffer, lines.byteOffset, lines.byteLength);
      // A buffer of its own is handed over without a copy; a slice of Node's shared pool is copied.
      const own = lines.buffer instanceof ArrayBuffer && lines.byteOffset === 0 && lines.byteLength === lines.buffer.byteLength;
      port.postMessage({ items: items.length, entries, lines: bytes } satisfies PrefetchWorkerReply, own ? [lines.buffer as ArrayBuffer] : []);
    } catch (error) {
      failed = true;
      cache?.close();
      cache = null;
      port.postMessage({ failed: error instanceof Error ? error.constructor.name : "Error" } satisfies PrefetchWorkerReply);
    }
  });
  port.on("close", () => cache?.close());
}
