// The worker thread of verify's two-thread read (stream-pair.ts starts it): walks the pair named in
// its start data, checking one share of the records (pair-share.ts), and posts what it found
// (ShareOutcome), or null when the walk threw; the main thread then checks that share itself.
// Started ahead of need (pair-worker-start.ts, start data null), it loads and then waits for its
// start data as its first message; one nobody takes within AHEAD_IDLE_MS closes its port and ends.
import { parentPort, workerData } from "node:worker_threads";
import { walkShare, type PairWorkerData } from "./stream-pair.js";

/** How long a worker started ahead waits to be taken: loading the verifier takes well under a second. */
const AHEAD_IDLE_MS = 20_000;

if (parentPort !== null) {
  const port = parentPort;
  const run = ({ manifestPath, exportPath, chunkBytes, share, ids }: PairWorkerData): void => {
    walkShare(manifestPath, exportPath, chunkBytes, share, ids).then(
      (outcome) => port.postMessage(outcome),
      () => port.postMessage(null),
    );
  };
  if (workerData === null) {
    // The command that started it ends the process when it is done; a library caller may not.
    const idle = setTimeout(() => port.close(), AHEAD_IDLE_MS);
    port.once("message", (data: PairWorkerData) => {
      clearTimeout(idle);
      run(data);
    });
  } else run(workerData as PairWorkerData);
}
