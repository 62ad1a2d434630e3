// A run that stalls past the lock's stale limit loses its lock to the next run, which removes the
// stalled run's scratch files as a killed run's leftovers. When the stalled run goes on and fails
// for want of them, its error says that its lock was taken over, not only that a file is missing.
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CALIBRATION_PROBE_TEXT } from "../../src/canary/run-context.js";
import { ingestFiles } from "../../src/ingest/files.js";
import { lockPathFor } from "../../src/publish/lock.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { ingestOptions, RECORDS, tempDir } from "../support/publish-fixtures.js";

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "in.jsonl"), RECORDS);
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

/** What the next run does to a stale lock and its leftovers: scratch files and lock directories removed, its own locks made. */
async function takeOver(): Promise<void> {
  for (const name of await readdir(dir)) if (name.startsWith(".m.json.") || name.startsWith(".e.json.")) await rm(join(dir, name), { force: true });
  for (const target of ["m.json", "e.json"]) await rm(lockPathFor(join(dir, target)), { recursive: true, force: true });
  await sleep(30);
  await mkdir(join(dir, "between"));
  for (const target of ["m.json", "e.json"]) await mkdir(lockPathFor(join(dir, target)));
}

describe("a run whose lock another run took over", () => {
  it("fails saying its lock was taken over, and publishes nothing", async () => {
    let done = false;
    ollama.setReply(async (request) => {
      const body = JSON.stringify(request.body);
      // While the run checks its first record, the next run takes its lock and its scratch files.
      if (!done && !body.includes(CALIBRATION_PROBE_TEXT)) {
        done = true;
        await takeOver();
      }
      return { content: "The capital of France is Paris." };
    });
    await expect(ingestFiles(ingestOptions(dir, ollama.url))).rejects.toMatchObject({
      code: "publish",
      message: expect.stringMatching(/^another run took over the publication lock .*m\.json\.lock.* while this run held it .*so this run stopped: /),
    });
    expect((await readdir(dir)).filter((name) => name === "m.json" || name === "e.json")).toEqual([]);
  });
});
