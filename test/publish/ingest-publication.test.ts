// The CLI's publication flow end to end, in-process, against the loopback Ollama stand-in:
// locking between concurrent runs, --overwrite, interrupts, stdin input and leftovers that
// `verify` must report.
import { mkdir, readFile, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runIngest } from "../../cli/commands/ingest.js";
import { describeFailure } from "../../cli/exit-codes.js";
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

const DUPLICATE_KEY_LINE = '{"text":"a","text":"b"}\n';

async function writePreviousPair(): Promise<{ manifest: Buffer; export: Buffer }> {
  const t = testIo(dir);
  await writeFile(join(dir, "old.jsonl"), JSON.stringify({ text: "An older note about lakes." }) + "\n");
  expect(await runIngest("old.jsonl", ingestFlags(ollama.url), t.io)).toBe(0);
  return { manifest: await readFile(join(dir, "m.json")), export: await readFile(join(dir, "e.json")) };
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

  it("publishes when the input is stdin", async () => {
    const t = testIo(dir, Readable.from([Buffer.from(RECORDS)]));
    expect(await runIngest("-", ingestFlags(ollama.url), t.io)).toBe(0);
    expect(t.stdout()).toContain("input sha256=");
    expect((await verifyPair()).code).toBe(0);
  });

  it("a write failure during publication is a publish error (exit 3) with nothing published", async () => {
    const t = testIo(dir);
    const { fs } = recordingFs((call) => {
      if (call.op === "write" && call.path.includes(".e.json.")) throw Object.assign(new Error("ENOSPC"), { code: "ENOSPC", path: call.path });
    });
    const error = await runIngest("in.jsonl", ingestFlags(ollama.url), t.io, { fs }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "publish", message: expect.stringMatching(/^ENOSPC on .*\/\.e\.json\.[0-9a-f]{16}\.tmp; nothing published$/) });
    expect(describeFailure("ingest", error).exitCode).toBe(3);
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });
});

describe("two runs on the same paths", () => {
  it("cannot interleave: exactly one pair is published and verifies, the other run exits 3", async () => {
    ollama.setLatency(150);
    const runs = await Promise.all([
      runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--ollama-url", ollama.url], { cwd: dir }),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
        runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--ollama-url", ollama.url], { cwd: dir }),
      ),
    ]);
    const codes = runs.map((run) => run.code).sort();
    expect(codes).toEqual([0, 3]);
    const refused = runs.find((run) => run.code === 3)!;
    expect(refused.stderr).toMatch(/^error: another run is publishing to \/.*\/[em]\.json \(lock \/.*\/[em]\.json\.lock is held\); retry later or pass --wait-lock SECONDS\n$/);
    expect(refused.stdout).toBe("");
    const state = await dirState(dir);
    expect(state.files).toEqual(["e.json", "in.jsonl", "m.json"]);
    expect((await verifyPair()).code).toBe(0);
  });

  it("with --overwrite on both, the second run's lock attempt still exits 3 without touching the first run's pair", async () => {
    ollama.setLatency(150);
    const args = ["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url];
    const runs = await Promise.all([
      runCli(args, { cwd: dir }),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => runCli(args, { cwd: dir })),
    ]);
    expect(runs.map((run) => run.code).sort()).toEqual([0, 3]);
    expect((await verifyPair()).code).toBe(0);
  });

  it("runs with different manifests but the same export cannot take each other's export away", async () => {
    ollama.setLatency(150);
    const first = await writePreviousPair();
    expect(first.export.length).toBeGreaterThan(0);
    const runs = await Promise.all([
      runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url], { cwd: dir }),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
        runCli(["ingest", "in.jsonl", "--manifest", "other.json", "--export", "e.json", "--overwrite", "--ollama-url", ollama.url], { cwd: dir }),
      ),
    ]);
    expect(runs.map((run) => run.code)).toEqual([0, 3]);
    expect(runs[1]!.stderr).toContain("e.json.lock is held");
    expect((await verifyPair()).code).toBe(0);
    expect((await dirState(dir)).files).not.toContain("other.json");
  });

  it("with a lock wait, the second run waits, then refuses the pair the first one published", async () => {
    ollama.setLatency(100);
    const first = testIo(dir);
    const second = testIo(dir);
    const [a, b] = await Promise.all([
      runIngest("in.jsonl", ingestFlags(ollama.url), first.io),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => runIngest("in.jsonl", ingestFlags(ollama.url, { waitLock: 10 }), second.io).catch((error: Error) => error)),
    ]);
    expect(a).toBe(0);
    expect(b).toBeInstanceOf(Error);
    expect((b as Error).message).toContain("already exists (use --overwrite to replace it)");
    expect((await verifyPair()).code).toBe(0);
  });

  it("with a lock wait and --overwrite, the second run replaces the first run's pair with its own", async () => {
    ollama.setLatency(100);
    const first = testIo(dir);
    const second = testIo(dir);
    const [a, b] = await Promise.all([
      runIngest("in.jsonl", ingestFlags(ollama.url), first.io),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => runIngest("in.jsonl", ingestFlags(ollama.url, { waitLock: 10, overwrite: true }), second.io)),
    ]);
    expect([a, b]).toEqual([0, 0]);
    const manifestSha = /manifest: .* sha256=([0-9a-f]{64})/.exec(second.stdout())![1];
    const verified = await runCli(["verify", "--manifest", "m.json", "--export", "e.json", "--expect-manifest-sha256", manifestSha!], { cwd: dir });
    expect(verified.code).toBe(0);
  });

  it("recovers a lock left behind by a killed run", async () => {
    await mkdir(lockPathFor(join(dir, "m.json")));
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPathFor(join(dir, "m.json")), old, old);
    const t = testIo(dir);
    expect(await runIngest("in.jsonl", ingestFlags(ollama.url), t.io)).toBe(0);
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
  });
});

describe("--overwrite", () => {
  it("a refused setting exits 3 with the previous pair untouched", async () => {
    const previous = await writePreviousPair();
    const run = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--segment-chars", "0", "--ollama-url", ollama.url], { cwd: dir });
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

  it("a publication failure after the old pair was removed leaves no pair either", async () => {
    await writePreviousPair();
    const { fs } = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("m.json")) throw Object.assign(new Error("EIO"), { code: "EIO" });
    });
    const t = testIo(dir);
    await expect(runIngest("in.jsonl", ingestFlags(ollama.url, { overwrite: true }), t.io, { fs })).rejects.toThrow("nothing published");
    expect((await dirState(dir)).files).toEqual(["in.jsonl", "old.jsonl"]);
  });

  it("replaces the previous pair with a new one that verifies", async () => {
    const previous = await writePreviousPair();
    const t = testIo(dir);
    expect(await runIngest("in.jsonl", ingestFlags(ollama.url, { overwrite: true }), t.io)).toBe(0);
    expect((await readFile(join(dir, "m.json"))).equals(previous.manifest)).toBe(false);
    expect((await verifyPair()).code).toBe(0);
  });
});

describe("interrupts", () => {
  it("SIGINT during publication rolls back: exit 3, no file, no temp, no lock", async () => {
    const t = testIo(dir);
    const { fs } = recordingFs((call) => {
      if (call.op === "fsync" && call.path.includes(".m.json.")) t.trigger("SIGINT");
    });
    const run = runIngest("in.jsonl", ingestFlags(ollama.url), t.io, { fs });
    await expect(run).rejects.toThrow("interrupted during publication; nothing published");
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("SIGTERM after the export is linked takes the export back", async () => {
    const t = testIo(dir);
    let exportLinked = false;
    const { fs } = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("e.json")) exportLinked = true;
      else if (exportLinked && call.op === "fsync") t.trigger("SIGTERM");
    });
    await expect(runIngest("in.jsonl", ingestFlags(ollama.url), t.io, { fs })).rejects.toThrow("interrupted");
    expect(exportLinked).toBe(true);
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("a signal that arrives during the manifest link (the commit) leaves the complete pair and says so", async () => {
    const t = testIo(dir);
    const { fs } = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("m.json")) t.trigger("SIGINT");
    });
    expect(await runIngest("in.jsonl", ingestFlags(ollama.url), t.io, { fs })).toBe(0);
    expect(t.stderr()).toContain("the publication had already committed");
    expect((await verifyPair()).code).toBe(0);
  });

  it("SIGINT while records are being checked exits 3 at once with nothing written", async () => {
    ollama.setLatency(2_000);
    const t = testIo(dir);
    const started = Date.now();
    const run = runIngest("in.jsonl", ingestFlags(ollama.url), t.io);
    while (ollama.chatRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    t.trigger("SIGINT");
    await expect(run).rejects.toThrow("interrupted by SIGINT; nothing written");
    expect(Date.now() - started).toBeLessThan(1_500);
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("SIGTERM while waiting for stdin ends the read and the run, nothing written", async () => {
    const stdin = new PassThrough();
    const t = testIo(dir, stdin);
    const run = runIngest("-", ingestFlags(ollama.url), t.io);
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.trigger("SIGTERM");
    await expect(run).rejects.toMatchObject({ code: "input_refused", message: "interrupted by SIGTERM; nothing written" });
    expect(stdin.destroyed).toBe(true);
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("maps an interrupt to exit 3 through the CLI", async () => {
    const signals: { trigger?: (signal: NodeJS.Signals) => void } = {};
    ollama.setLatency(1_000);
    const run = runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--ollama-url", ollama.url], { cwd: dir, signals });
    while (ollama.chatRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    signals.trigger!("SIGINT");
    const result = await run;
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("error: interrupted by SIGINT; nothing written\n");
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });
});

describe("leftovers and verify", () => {
  it("verify reports a manifest whose requested export is missing (export_missing, exit 1)", async () => {
    const t = testIo(dir);
    expect(await runIngest("in.jsonl", ingestFlags(ollama.url), t.io)).toBe(0);
    // What a crash between two non-cooperating tools, or a lost file, leaves behind.
    await unlink(join(dir, "e.json"));
    const verified = await verifyPair("m.json", null);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain("[export_missing]");
  });

  it("an export left without its manifest (kill -9 mid-publication) is not a pair: verify refuses it", async () => {
    const t = testIo(dir);
    expect(await runIngest("in.jsonl", ingestFlags(ollama.url), t.io)).toBe(0);
    await unlink(join(dir, "m.json"));
    const verified = await verifyPair();
    expect(verified.code).toBe(3);
  });
});
