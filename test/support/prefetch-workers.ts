// Worker scripts for the record prefetch's tests (test/ingest/record-prefetch.test.ts): the real
// worker, bundled from its TypeScript source the way the CLI's tests bundle the CLI (a worker
// thread cannot load TypeScript), and stand-ins that answer slowly or fail, written as plain
// JavaScript files into a temp directory.
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleScript, type BundledCli } from "./cli-child.js";

const REPO = resolve(import.meta.dirname, "../..");

/** The real worker (src/ingest/record-prefetch-worker.ts), bundled; dispose removes it. */
export async function bundledPrefetchWorker(): Promise<{ url: URL; dispose: () => Promise<void> }> {
  const bundle: BundledCli = await bundleScript(join(REPO, "src/ingest/record-prefetch-worker.ts"));
  return { url: pathToFileURL(bundle.entry), dispose: () => bundle.dispose() };
}

/** A worker that answers every batch with no entries, after `delayMs`. */
export async function slowEmptyWorker(dir: string, delayMs: number): Promise<URL> {
  const path = join(dir, "slow-worker.mjs");
  await writeFile(
    path,
    [
      'import { parentPort } from "node:worker_threads";',
      `parentPort.on("message", (items) => setTimeout(() => parentPort.postMessage({ items: items.length, entries: 0, lines: new Uint8Array(0) }), ${delayMs}));`,
      "",
    ].join("\n"),
  );
  return pathToFileURL(path);
}

/** A worker that throws on its first batch (an uncaught error in the thread). */
export async function crashingWorker(dir: string): Promise<URL> {
  const path = join(dir, "crashing-worker.mjs");
  await writeFile(
    path,
    ['import { parentPort } from "node:worker_threads";', 'parentPort.on("message", () => { throw new RangeError("stand-in failure"); });', ""].join("\n"),
  );
  return pathToFileURL(path);
}
