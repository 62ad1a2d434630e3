// The worker thread of verify's two-thread read (stream-pair.ts starts it): walks the pair named in
// its start data, checking one share of the records (pair-share.ts), and posts what it found
// (ShareOutcome), or null when the walk threw; the main thread then checks that share itself.
// Started ahead of need (pair-worker-start.ts, start data null), it loads and then waits for its
// start data as its first message.
import { parentPort, workerData } from "node:worker_threads";
import { walkShare, type PairWorkerData } from "./stream-pair.js";

if (parentPort !== null) {
  const port = parentPort;
  const run = ({ manifestPath, exportPath, chunkBytes, share, ids }: PairWorkerData): void => {
    walkShare(manifestPath, exportPath, chunkBytes, share, ids).then(
      (outcome) => port.postMessage(outcome),
      () => port.postMessage(null),
    );
  };
  if (workerData === null) port.once("message", run);
  else run(workerData as PairWorkerData);
}
