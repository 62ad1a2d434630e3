// The CLI's publication flow end to end, in-process, against the loopback Ollama stand-in:
// locking between concurrent runs, --overwrite, interrupts, stdin input and leftovers that
// `verify` must report.
import { readFile, writeFile, mkdir, utimes, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runIngest } from "../../cli/commands/ingest.js";
import { lockPathFor } from "../../src/publish/lock.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { RECORDS, dirState, ingestFlags, recordingFs, tempDir, testIo } from "./_support.js";

const BENIGN = "The capital of France is Paris.";

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: BENIGN });
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "in.jsonl"), RECORDS);
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

async function verifyPair(manifest = "m.json", exported: string | null = "e.json") {
  const args = ["verify", "--manifest", join(dir, manifest)];
  if (exported !== null) args.push("--export", join(dir, exported));
  return runCli(args, { cwd: dir });
}

describe("ingest publication", () => {
  it("publishes a pair that verifies, leaving no temp, recovery or lock file", async () => {
    const t = testIo(dir);
    const code = await runIngest("in.jsonl", ingestFlags(ollama.url), t.io);
    expect(t.stderr()).toBe("");
    expect(code).toBe(0);
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
    const verified = await verifyPair();
    expect(verified.stdout).toContain("verify: consistent");
    expect(verified.code).toBe(0);
  });
});
