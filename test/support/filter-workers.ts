// The structural filter's worker for the offload's tests (test/structural/offload.test.ts),
// bundled from its TypeScript source (a worker thread cannot load TypeScript). A worker that
// fails on its first message is prefetch-workers.ts's `crashingWorker`.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleScript } from "./cli-child.js";

const REPO = resolve(import.meta.dirname, "../..");

/** The real worker (src/structural/filter-worker.ts), bundled; dispose removes it. */
export async function bundledFilterWorker(): Promise<{ url: URL; dispose: () => Promise<void> }> {
  const bundle = await bundleScript(join(REPO, "src/structural/filter-worker.ts"));
  return { url: pathToFileURL(bundle.entry), dispose: () => bundle.dispose() };
}
