// The strict reader's records as a pulled async iterable, for `screenFile`'s second pass:
// `scanRecords` pushes, the checks pull when a lane is free, and a small queue between them makes
// the read wait while it is full (at most QUEUE_RECORDS records held). When the consumer stops
// early (a failure, an abort), the read is stopped and its source closed.
import type { RawRecord } from "../jsonl/record.js";
import { type ReadOptions, type ScanOutcome, scanRecords } from "../jsonl/read.js";

/** Records read ahead of the consumer at most. */
const QUEUE_RECORDS = 64;

/** Thrown into the reader when the consumer has gone, to stop it and close its source. */
class ConsumerGone extends Error {}

/**
 * Yields the records `scanRecords` reads from `source`, in order, and hands its outcome (how
 * much was read, or the refusal) to `onOutcome` once the read is over; the reader's own errors
 * (a failed read) are thrown from the iteration.
 */
export async function* pullRecords(
  source: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  onOutcome: (outcome: ScanOutcome) => void,
): AsyncGenerator<RawRecord> {
  const queue: RawRecord[] = [];
  let head = 0;
  let gone = false;
  let ended: { outcome: ScanOutcome } | { error: unknown } | null = null;
  // Who waits for the other side: each is woken (and forgotten) at most once.
  const waiting: { consumer?: () => void; reader?: () => void } = {};
  const wake = (which: "consumer" | "reader"): void => {
    const resolve = waiting[which];
    delete waiting[which];
    resolve?.();
  };
  const reading = scanRecords(source, options, async (record) => {
    if (gone) throw new ConsumerGone();
    queue.push(record);
    wake("consumer");
    while (queue.length - head >= QUEUE_RECORDS && !gone) {
      await new Promise<void>((resolve) => {
        waiting.reader = resolve;
      });
    }
    if (gone) throw new ConsumerGone();
  }).then(
    (outcome) => {
      ended = { outcome };
    },
    (error: unknown) => {
      ended = { error };
    },
  );
  void reading.then(() => wake("consumer"));
  try {
    for (;;) {
      if (head < queue.length) {
        const record = queue[head] as RawRecord;
        queue[head] = undefined as unknown as RawRecord;
        head++;
        // Taken slots are dropped in batches, so the array never outgrows the queue bound.
        if (head >= QUEUE_RECORDS || head === queue.length) {
          queue.splice(0, head);
          head = 0;
        }
        wake("reader");
        yield record;
        continue;
      }
      if (ended !== null) break;
      await new Promise<void>((resolve) => {
        waiting.consumer = resolve;
      });
    }
    const end = ended as { outcome: ScanOutcome } | { error: unknown };
    if ("error" in end) throw end.error;
    onOutcome(end.outcome);
  } finally {
    gone = true;
    wake("reader");
    // The reader unwinds (closing its source) before the iteration is over.
    await reading;
  }
}
