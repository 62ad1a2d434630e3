// What a killed ingest run leaves beside its manifest (its id index and SQLite's journal of it,
// produced here by a real process killed with SIGKILL, plus its stale lock) is removed by the next
// run once it holds the lock, the journal included: leftovers never pile up one per kill.
import { spawn } from "node:child_process";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { lockPathFor, STALE_LOCK_MS } from "../../src/publish/lock.js";
import { bundleScript, type BundledCli } from "../support/cli-child.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { ingestOptions, RECORDS, tempDir } from "../support/publish-fixtures.js";

let killed: BundledCli;
let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  killed = await bundleScript(resolve(import.meta.dirname, "../support/killed-id-index.ts"));
}, 120_000);
afterAll(() => killed.dispose());
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "in.jsonl"), RECORDS);
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

/** Runs the id-index child for `target` until it kills itself; resolves with the signal that ended it. */
function killedRun(target: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [killed.entry, target, "40000"], { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (_code, signal) => resolvePromise(signal));
  });
}

describe("leftovers of a killed ingest run", () => {
  it("the next run takes over the stale lock and removes the id index and its .spool-journal a killed run left", async () => {
    const manifest = join(dir, "m.json");
    expect(await killedRun(manifest)).toBe("SIGKILL");
    expect(await killedRun(manifest)).toBe("SIGKILL");
    const left = (await readdir(dir)).filter((name) => name.startsWith(".m.json."));
    // What a real kill leaves: per killed run, the index and SQLite's journal beside it.
    expect(left.filter((name) => name.endsWith(".ids.spool"))).toHaveLength(2);
    expect(left.filter((name) => name.endsWith(".ids.spool-journal"))).toHaveLength(2);
    // The killed run's lock, old enough to be taken over.
    await mkdir(lockPathFor(manifest));
    const old = new Date(Date.now() - STALE_LOCK_MS - 5_000);
    await utimes(lockPathFor(manifest), old, old);
    const notes: string[] = [];
    const result = await ingestFiles(ingestOptions(dir, ollama.url, { reporter: { warn: (note) => void notes.push(note) } }));
    expect(result.outcome).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(["e.json", "in.jsonl", "m.json"]);
    expect(notes.filter((note) => note.includes("removed a scratch file left by an interrupted run"))).toHaveLength(4);
  });

  it("a file that only looks like a journal of ours is not removed", async () => {
    const lookalikes = [".m.json.notours.ids.spool-journal", ".m.json.0123456789ab.ids.spool-journal.bak", ".m.json.0123456789ab.ids.spool-other"];
    for (const name of lookalikes) await writeFile(join(dir, name), "keep");
    await ingestFiles(ingestOptions(dir, ollama.url));
    expect((await readdir(dir)).filter((name) => name.startsWith(".")).sort()).toEqual([...lookalikes].sort());
  });
});
