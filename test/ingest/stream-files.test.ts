// The streamed ingest as a file run: nothing checked before the whole input is validated,
// scratch files never outlive a run (success, refusal, abort) and a killed run's leftovers are
// removed by the next run under the lock; run limits of 0 mean no limit only when given.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { IngestRefusedError } from "../../src/ingest/run-plan.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { ingestOptions, tempDir } from "../support/publish-fixtures.js";

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

const lines = (n: number): string =>
  `${Array.from({ length: n }, (_, i) => JSON.stringify({ id: `r${i}`, text: `Ordinary record number ${i}.` })).join("\n")}\n`;
const spools = async (): Promise<string[]> => (await readdir(dir)).filter((name) => name.endsWith(".spool"));

describe("ingestFiles", () => {
  it("a broken line late in the input refuses the run before any canary call, and leaves no scratch file", async () => {
    await writeFile(join(dir, "in.jsonl"), `${lines(40)}{"text": broken\n`);
    await expect(ingestFiles(ingestOptions(dir, ollama.url))).rejects.toThrow(/line 41: .*nothing written/);
    expect(ollama.chatRequests()).toHaveLength(0);
    expect((await readdir(dir)).sort()).toEqual(["in.jsonl"]);
  });

  it("a successful run removes its scratch files; the published pair verifies", async () => {
    await writeFile(join(dir, "in.jsonl"), lines(25));
    const result = await ingestFiles(ingestOptions(dir, ollama.url, { concurrency: 4 }));
    expect(result.manifest.counts.admitted).toBe(25);
    expect(await spools()).toEqual([]);
    const exported = JSON.parse(await readFile(join(dir, "e.json"), "utf8")) as { manifest_sha256: string; records: unknown[] };
    expect(exported.manifest_sha256).toBe(result.published.manifestSha256);
    expect(exported.records).toHaveLength(25);
  });

  it("an abort during the checks removes every scratch file and writes nothing", async () => {
    await writeFile(join(dir, "in.jsonl"), lines(30));
    ollama.setLatency(200);
    const controller = new AbortController();
    const running = ingestFiles(ingestOptions(dir, ollama.url, { signal: controller.signal }));
    while (ollama.chatRequests().length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new IngestRefusedError("interrupted by SIGINT; nothing written"));
    await expect(running).rejects.toThrow("interrupted by SIGINT");
    // The run's own cleanup is awaited before it settles.
    expect((await readdir(dir)).sort()).toEqual(["in.jsonl"]);
  });

  it("scratch files a killed run left beside the targets are removed by the next run, and said so", async () => {
    await writeFile(join(dir, "in.jsonl"), lines(3));
    const leftovers = [".m.json.0123456789ab.records.spool", ".m.json.ba9876543210.manifest-records.spool", ".e.json.aaaaaaaaaaaa.export-records.spool"];
    for (const name of leftovers) await writeFile(join(dir, name), "partial");
    // A neighbour that only looks similar is not ours and stays.
    await writeFile(join(dir, ".m.json.notours.spool"), "keep");
    const notes: string[] = [];
    await ingestFiles(ingestOptions(dir, ollama.url, { reporter: { warn: (note) => void notes.push(note) } }));
    expect(await spools()).toEqual([".m.json.notours.spool"]);
    expect(notes.filter((note) => note.includes("removed a scratch file left by an interrupted run"))).toHaveLength(3);
  });
});

describe("run limits are policy values", () => {
  it("the default still refuses the 1,001st record naming --max-items; --max-items 0 --max-total-bytes 0 lift both limits", async () => {
    await writeFile(join(dir, "in.jsonl"), lines(1001));
    const refused = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--no-canary"], { cwd: dir });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("--max-items");
    const lifted = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--no-canary", "--max-items", "0", "--max-total-bytes", "0"], { cwd: dir });
    expect(lifted.stderr).not.toContain("error:");
    expect(lifted.stdout).toContain("1001 records");
    const manifest = JSON.parse(await readFile(join(dir, "m.json"), "utf8")) as { policy: { max_items: number; max_total_bytes: number } };
    expect(manifest.policy).toMatchObject({ max_items: 0, max_total_bytes: 0 });
  });
});
