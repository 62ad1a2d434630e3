// Worker scripts for the structural offload's tests (test/structural/offload.test.ts): the real
// filter worker, bundled from its TypeScript source (a worker thread cannot load TypeScript), and
// a stand-in that fails on its first text, written as plain JavaScript into a temp directory.
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleScript } from "./cli-child.js";

const REPO = resolve(import.meta.dirname, "../..");

/** The real worker (src/structural/filter-worker.ts), bundled; dispose removes it. */
export async function bundledFilterWorker(): Promise<{ url: URL; dispose: () => Promise<void> }> {
  const bundle = await bundleScript(join(REPO, "src/structural/filter-worker.ts"));
  return { url: pathToFileURL(bundle.entry), dispose: () => bundle.dispose() };
}

/** A worker that throws on its first text (an uncaught error in the thread). */
export async function crashingFilterWorker(dir: string): Promise<URL> {
  const path = join(dir, "crashing-filter-worker.mjs");
  await writeFile(
    path,
    ['import { parentPort } from "node:worker_threads";', 'parentPort.on("message", () => { throw new RangeError("stand-in failure"); });', ""].join("\n"),
  );
  return pathToFileURL(path);
}
