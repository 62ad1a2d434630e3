// The worker thread of verify's two-thread read (stream-pair.ts starts it): walks one share of the
// pair's records (pair-share.ts), handed to it by the thread that reads the files (share-feed.ts;
// it reads no file itself), gives back each batch's buffer once read, and posts what it found
// (ShareOutcome), or null when the walk threw; the main thread then checks that share itself.
// Started ahead of need (pair-worker-start.ts, start data null), it loads and then waits for its
// start data as its first message; one nobody takes within AHEAD_IDLE_MS closes its port and ends.
import { parentPort, workerData } from "node:worker_threads";
import { FedDocuments, type FeedMessage } from "./share-feed.js";
import { walkShare, type PairWorkerData, type PairWorkerMessage, type PairWorkerReply } from "./stream-pair.js";

/** How long a worker started ahead waits to be taken: loading the verifier takes well under a second. */
const AHEAD_IDLE_MS = 20_000;

if (parentPort !== null) {
  const port = parentPort;
  const reply = (message: PairWorkerReply, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  // Each batch's buffer goes back once its elements were read, for the next batch.
  const fed = new FedDocuments((buffer) => reply({ kind: "taken", buffer }, [buffer]));
  let start: PairWorkerData | null = workerData as PairWorkerData | null;
  const run = ({ manifestPath, exportPath, chunkBytes, share, ids }: PairWorkerData): void => {
    walkShare(manifestPath, exportPath, chunkBytes, share, ids, fed).then(
      (outcome) => reply({ kind: "outcome", outcome }),
      () => reply({ kind: "outcome", outcome: null }),
    );
  };
  // The command that started it ahead ends the process when it is done; a library caller may not.
  const idle = start === null ? setTimeout(() => port.close(), AHEAD_IDLE_MS) : null;
  port.on("message", (message: PairWorkerMessage) => {
    if (start !== null) {
      fed.receive(message as FeedMessage);
      return;
    }
    if (idle !== null) clearTimeout(idle);
    start = message as PairWorkerData;
    run(start);
  });
  if (start !== null) run(start);
}
