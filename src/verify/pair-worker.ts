// The worker thread of verify's two-thread read (stream-pair.ts starts it): walks the pair named in
// its start data, checking one share of the records (pair-share.ts), and posts what it found
// (ShareOutcome), or null when the walk threw; the main thread then checks that share itself.
import { parentPort, workerData } from "node:worker_threads";
import { walkShare, type PairWorkerData } from "./stream-pair.js";

if (parentPort !== null) {
  const port = parentPort;
  const { manifestPath, exportPath, chunkBytes, share, ids } = workerData as PairWorkerData;
  walkShare(manifestPath, exportPath, chunkBytes, share, ids).then(
    (outcome) => port.postMessage(outcome),
    () => port.postMessage(null),
  );
}
