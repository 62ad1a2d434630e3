// What `little-canary ingest` and `verify` say and exit with around publication: concurrent
// runs, --overwrite refusals and an interrupt, driven through the whole CLI in-process. The
// publication sequence itself is tested through the library in test/publish/.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { firstChat, whileFirstHoldsTheLocks } from "../support/held-replies.js";
import { RECORDS, dirState, tempDir } from "../support/publish-fixtures.js";

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

/** whileFirstHoldsTheLocks for two CLI runs: their results, first then second. */
async function twoRuns(first: string[], second: string[]) {
  const outcomes = await whileFirstHoldsTheLocks(
    ollama,
    "The capital of France is Paris.",
    () => runCli(first, { cwd: dir }),
    () => runCli(second, { cwd: dir }),
  );
  return outcomes.map((outcome) => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  });
}

async function verifyPair(manifest = "m.json", exported: string | null = "e.json") {
  const args = ["verify", "--manifest", join(dir, manifest)];
  if (exported !== null) args.push("--export", join(dir, exported));
  return runCli(args, { cwd: dir });
}

const DUPLICATE_KEY_LINE = '{"text":"a","text":"b"}\n';

async function writePreviousPair(): Promise<{ manifest: Buffer; export: Buffer }> {
  await writeFile(join(dir, "old.jsonl"), JSON.stringify({ text: "An older note about lakes." }) + "\n");
  const run = await runCli(["ingest", "old.jsonl", "--manifest", "m.json", "--export", "e.json", "--ollama-url", ollama.url], { cwd: dir });
  expect(run.code).toBe(0);
  return { manifest: await readFile(join(dir, "m.json")), export: await readFile(join(dir, "e.json")) };
}

describe("ingest publication through the CLI", () => {
  it("cannot interleave: exactly one pair is published and verifies, the other run exits 3", async () => {
    const args = ["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--ollama-url", ollama.url];
    const runs = await twoRuns(args, args);
    const codes = runs.map((run) => run.code).sort();
    expect(codes).toEqual([0, 3]);
    const refused = runs.find((run) => run.code === 3)!;
    expect(refused.stderr).toMatch(
      /^error: another run is publishing to \/.*\/[em]\.json \(lock \/.*\/[em]\.json\.lock is held\); retry later or pass --wait-lock SECONDS \(a lock left by a killed run is taken over 20 s after its last refresh\)\n$/,
    );
    expect(refused.stdout).toBe("");
    const state = await dirState(dir);
    expect(state.files).toEqual(["e.json", "in.jsonl", "m.json"]);
    expect((await verifyPair()).code).toBe(0);
  });

  it("with --overwrite on both, the second run's lock attempt still exits 3 without touching the first run's pair", async () => {
    const args = ["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url];
    const runs = await twoRuns(args, args);
    expect(runs.map((run) => run.code).sort()).toEqual([0, 3]);
    expect((await verifyPair()).code).toBe(0);
  });

  it("runs with different manifests but the same export cannot take each other's export away", async () => {
    const first = await writePreviousPair();
    expect(first.export.length).toBeGreaterThan(0);
    const runs = await twoRuns(
      ["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url],
      ["ingest", "in.jsonl", "--manifest", "other.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url],
    );
    expect(runs.map((run) => run.code)).toEqual([0, 3]);
    expect(runs[1]!.stderr).toContain("e.json.lock is held");
    expect((await verifyPair()).code).toBe(0);
    expect((await dirState(dir)).files).not.toContain("other.json");
  });

  it("a refused setting exits 3 with the previous pair untouched", async () => {
    const previous = await writePreviousPair();
    const run = await runCli(
      ["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--segment-chars", "0", "--ollama-url", ollama.url],
      { cwd: dir },
    );
    expect(run.code).toBe(3);
    expect((await readFile(join(dir, "m.json"))).equals(previous.manifest)).toBe(true);
    expect((await readFile(join(dir, "e.json"))).equals(previous.export)).toBe(true);
  });

  it("a failure after the pre-flight checks leaves no pair rather than the old one", async () => {
    await writePreviousPair();
    await writeFile(join(dir, "bad.jsonl"), RECORDS + DUPLICATE_KEY_LINE);
    const run = await runCli(["ingest", "bad.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("nothing written");
    expect((await dirState(dir)).files).toEqual(["bad.jsonl", "in.jsonl", "old.jsonl"]);
  });

  it("maps an interrupt to exit 3 through the CLI", async () => {
    const signals: { trigger?: (signal: NodeJS.Signals) => void } = {};
    ollama.setLatency(1_000);
    const run = runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--ollama-url", ollama.url], { cwd: dir, signals });
    await firstChat(ollama);
    signals.trigger!("SIGINT");
    const result = await run;
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("error: interrupted by SIGINT; nothing written\n");
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("an interrupted run with --cache says the verdicts stored so far stay for a re-run", async () => {
    const signals: { trigger?: (signal: NodeJS.Signals) => void } = {};
    ollama.setLatency(1_000);
    const run = runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--cache", "v.sqlite", "--ollama-url", ollama.url], { cwd: dir, signals });
    await firstChat(ollama);
    signals.trigger!("SIGTERM");
    const result = await run;
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      "error: interrupted by SIGTERM; nothing written (the verdicts already stored in the --cache file stay there: a re-run with it reuses them)\n",
    );
  });
});
