// The library's publication flow end to end (ingestFiles), in-process, against the loopback Ollama
// stand-in: locking between concurrent runs, overwrite, aborts, stream input and leftovers that
// verifyFiles must report. What the CLI prints for these is in test/cli/ingest-publication.test.ts.
import { mkdir, readFile, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { IngestRefusedError } from "../../src/ingest/run-plan.js";
import { lockPathFor } from "../../src/publish/lock.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { firstChat, whileFirstHoldsTheLocks } from "../support/held-replies.js";
import { RECORDS, dirState, ingestOptions, recordingFs, tempDir, verifyPairIn } from "../support/publish-fixtures.js";

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

const options = (overrides: Parameters<typeof ingestOptions>[2] = {}) => ingestOptions(dir, ollama.url, overrides);
const verifyPair = (manifest = "m.json", exported: string | null = "e.json") => verifyPairIn(dir, manifest, exported);
/** An AbortController whose abort carries the reason the CLI gives an interrupt. */
const interrupter = (signal: NodeJS.Signals = "SIGINT") => {
  const controller = new AbortController();
  return { signal: controller.signal, interrupt: () => controller.abort(new IngestRefusedError(`interrupted by ${signal}; nothing written`)) };
};

async function writePreviousPair(): Promise<{ manifest: Buffer; export: Buffer }> {
  await writeFile(join(dir, "old.jsonl"), JSON.stringify({ text: "An older note about lakes." }) + "\n");
  expect((await ingestFiles(options({ input: "old.jsonl" }))).outcome).toBe(0);
  return { manifest: await readFile(join(dir, "m.json")), export: await readFile(join(dir, "e.json")) };
}

describe("ingest publication", () => {
  it("ingestFiles publishes a pair that verifies, leaving no temp, recovery or lock file", async () => {
    const notes: string[] = [];
    const result = await ingestFiles(options({ reporter: { warn: (note) => notes.push(note) } }));
    expect(notes).toEqual([]);
    expect(result.outcome).toBe(0);
    expect(result.interruptedAfterCommit).toBe(false);
    expect(result.published).toMatchObject({ manifestPath: join(dir, "m.json"), exportPath: join(dir, "e.json") });
    expect(result.manifest.counts.admitted).toBe(2);
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
    const verified = await verifyPair();
    expect(verified.consistent).toBe(true);
    expect(verified.manifestSha256).toBe(result.published.manifestSha256);
  });

  it("ingestFiles reads a stream input and records its hash", async () => {
    const result = await ingestFiles(options({ input: Readable.from([Buffer.from(RECORDS)]) }));
    expect(result.outcome).toBe(0);
    expect(result.manifest.run.input_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await verifyPair()).consistent).toBe(true);
  });

  it("ingestFiles calls its reporter in order: before the read, progress, after the run", async () => {
    const events: string[] = [];
    await ingestFiles(
      options({
        reporter: {
          start: () => void events.push("beforeRead"),
          progress: (done, total) => void events.push(`progress ${done}/${total}`),
          finished: (run) => void events.push(`afterRun ${run.summary.head.run.records_total}`),
        },
      }),
    );
    expect(events[0]).toBe("beforeRead");
    expect(events.at(-1)).toBe("afterRun 2");
    expect(events).toContain("progress 2/2");
  });

  it("a write failure during publication is a publish error with nothing published", async () => {
    const { fs } = recordingFs((call) => {
      if (call.op === "write" && call.path.includes(".e.json.")) throw Object.assign(new Error("ENOSPC"), { code: "ENOSPC", path: call.path });
    });
    const error = await ingestFiles(options({ fs })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "publish", message: expect.stringMatching(/^ENOSPC on .*\/\.e\.json\.[0-9a-f]{16}\.tmp; nothing published$/) });
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("a refused input is an input_refused error, nothing written and the locks released", async () => {
    await writeFile(join(dir, "bad.jsonl"), RECORDS + '{"text":"a","text":"b"}\n');
    await expect(ingestFiles(options({ input: "bad.jsonl" }))).rejects.toMatchObject({
      code: "input_refused",
      message: expect.stringContaining("nothing written"),
    });
    expect((await dirState(dir)).files).toEqual(["bad.jsonl", "in.jsonl"]);
  });

  it("an existing target is refused before the pipeline is even built", async () => {
    await writeFile(join(dir, "m.json"), "{}");
    let built = false;
    const run = ingestFiles(
      options({
        pipeline: () => {
          built = true;
          throw new Error("must not be built");
        },
      }),
    );
    await expect(run).rejects.toMatchObject({ code: "publish", message: `--manifest ${join(dir, "m.json")} already exists (use --overwrite to replace it)` });
    expect(built).toBe(false);
  });
});

describe("two runs on the same paths", () => {
  it("cannot interleave: exactly one pair is published and verifies, the other is refused naming the lock", async () => {
    const runs = await whileFirstHoldsTheLocks(
      ollama,
      BENIGN,
      () => ingestFiles(options()),
      () => ingestFiles(options()),
    );
    expect(runs.map((run) => run.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = runs.find((run) => run.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({
      code: "publish",
      message: expect.stringMatching(
        /^another run is publishing to \/.*\/[em]\.json \(lock \/.*\/[em]\.json\.lock is held\); retry later or pass --wait-lock SECONDS \(a lock left by a killed run is taken over 20 s after its last refresh\)$/,
      ),
    });
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
    expect((await verifyPair()).consistent).toBe(true);
  });

  it("runs with different manifests but the same export cannot take each other's export away", async () => {
    await writePreviousPair();
    const runs = await whileFirstHoldsTheLocks(
      ollama,
      BENIGN,
      () => ingestFiles(options({ overwrite: true })),
      () => ingestFiles(options({ manifest: "other.json", overwrite: true })),
    );
    expect(runs.map((run) => run.status)).toEqual(["fulfilled", "rejected"]);
    expect(String((runs[1] as PromiseRejectedResult).reason.message)).toContain("e.json.lock is held");
    expect((await verifyPair()).consistent).toBe(true);
    expect((await dirState(dir)).files).not.toContain("other.json");
  });

  it("with a lock wait, the second run waits, then refuses the pair the first one published", async () => {
    const [first, second] = await whileFirstHoldsTheLocks(
      ollama,
      BENIGN,
      () => ingestFiles(options()),
      () => ingestFiles(options({ waitLockSeconds: 10 })).catch((error: Error) => error),
      "once-second-started",
    );
    const a = fulfilled(first);
    const b = fulfilled(second);
    expect(a.outcome).toBe(0);
    expect(b).toBeInstanceOf(Error);
    expect((b as Error).message).toContain("already exists (use --overwrite to replace it)");
    expect((await verifyPair()).consistent).toBe(true);
  });

  it("with a lock wait and overwrite, the second run replaces the first run's pair with its own", async () => {
    const [first, second] = await whileFirstHoldsTheLocks(
      ollama,
      BENIGN,
      () => ingestFiles(options()),
      () => ingestFiles(options({ waitLockSeconds: 10, overwrite: true })),
      "once-second-started",
    );
    fulfilled(first);
    const b = fulfilled(second);
    const verified = await verifyFiles({ manifest: "m.json", export: "e.json", expectManifestSha256: b.published.manifestSha256, cwd: dir });
    expect(verified.consistent).toBe(true);
  });

  it("recovers a lock left behind by a killed run", async () => {
    await mkdir(lockPathFor(join(dir, "m.json")));
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPathFor(join(dir, "m.json")), old, old);
    expect((await ingestFiles(options())).outcome).toBe(0);
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
  });
});

describe("overwrite", () => {
  it("a refused setting is a usage error with the previous pair untouched", async () => {
    const previous = await writePreviousPair();
    await expect(ingestFiles(options({ overwrite: true, policy: { segment_chars: 0 } }))).rejects.toMatchObject({ code: "usage" });
    expect((await readFile(join(dir, "m.json"))).equals(previous.manifest)).toBe(true);
    expect((await readFile(join(dir, "e.json"))).equals(previous.export)).toBe(true);
  });

  it("an input path that does not exist is a refused setting: the previous pair is untouched", async () => {
    const previous = await writePreviousPair();
    await expect(ingestFiles(options({ input: "typo.jsonl", overwrite: true }))).rejects.toMatchObject({
      code: "usage",
      message: 'the input "typo.jsonl" does not exist',
    });
    expect((await readFile(join(dir, "m.json"))).equals(previous.manifest)).toBe(true);
    expect((await readFile(join(dir, "e.json"))).equals(previous.export)).toBe(true);
  });

  it("a failure after the pre-flight checks leaves no pair rather than the old one", async () => {
    await writePreviousPair();
    await writeFile(join(dir, "bad.jsonl"), RECORDS + '{"text":"a","text":"b"}\n');
    await expect(ingestFiles(options({ input: "bad.jsonl", overwrite: true }))).rejects.toThrow("nothing written");
    expect((await dirState(dir)).files).toEqual(["bad.jsonl", "in.jsonl", "old.jsonl"]);
  });

  it("a refusal after --overwrite removed the old pair says the old pair is gone", async () => {
    await writePreviousPair();
    await writeFile(join(dir, "bad.jsonl"), RECORDS + '{"text":"a","text":"b"}\n');
    await expect(ingestFiles(options({ input: "bad.jsonl", overwrite: true }))).rejects.toThrow(
      /nothing written \(the previous pair was already removed by --overwrite\)$/,
    );
  });

  it("with no previous pair, --overwrite adds nothing to the refusal", async () => {
    await writeFile(join(dir, "bad.jsonl"), RECORDS + '{"text":"a","text":"b"}\n');
    await expect(ingestFiles(options({ input: "bad.jsonl", overwrite: true }))).rejects.toThrow(/line \d+: duplicate key .*; nothing written$/);
  });

  it("a publication failure after the old pair was removed leaves no pair either", async () => {
    await writePreviousPair();
    const { fs } = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("m.json")) throw Object.assign(new Error("EIO"), { code: "EIO" });
    });
    await expect(ingestFiles(options({ overwrite: true, fs }))).rejects.toThrow("nothing published");
    expect((await dirState(dir)).files).toEqual(["in.jsonl", "old.jsonl"]);
  });

  it("replaces the previous pair with a new one that verifies", async () => {
    const previous = await writePreviousPair();
    expect((await ingestFiles(options({ overwrite: true }))).outcome).toBe(0);
    expect((await readFile(join(dir, "m.json"))).equals(previous.manifest)).toBe(false);
    expect((await verifyPair()).consistent).toBe(true);
  });
});

describe("aborts", () => {
  it("an abort during publication rolls back: nothing published, no file, no temp, no lock", async () => {
    const { signal, interrupt } = interrupter();
    const { fs } = recordingFs((call) => {
      if (call.op === "fsync" && call.path.includes(".m.json.")) interrupt();
    });
    await expect(ingestFiles(options({ fs, signal }))).rejects.toThrow("interrupted during publication; nothing published");
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("an abort after the export is linked takes the export back", async () => {
    const { signal, interrupt } = interrupter("SIGTERM");
    let exportLinked = false;
    const { fs } = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("e.json")) exportLinked = true;
      else if (exportLinked && call.op === "fsync") interrupt();
    });
    await expect(ingestFiles(options({ fs, signal }))).rejects.toThrow("interrupted");
    expect(exportLinked).toBe(true);
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("an abort during the manifest link (the commit) leaves the complete pair and the result says so", async () => {
    const { signal, interrupt } = interrupter();
    const { fs } = recordingFs((call) => {
      if (call.op === "link" && call.to?.endsWith("m.json")) interrupt();
    });
    const result = await ingestFiles(options({ fs, signal }));
    expect(result.outcome).toBe(0);
    expect(result.interruptedAfterCommit).toBe(true);
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
    expect((await verifyPair()).consistent).toBe(true);
  });

  it("an abort while records are being checked rejects at once with the abort reason, nothing written", async () => {
    // Each check in flight takes a minute, longer than the test may run: a run that waited for
    // them instead of rejecting at once fails by its timeout, however busy the machine.
    ollama.setLatency(60_000);
    const { signal, interrupt } = interrupter();
    const run = ingestFiles(options({ signal }));
    await firstChat(ollama);
    interrupt();
    await expect(run).rejects.toThrow("interrupted by SIGINT; nothing written");
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("an abort while waiting for a stream input destroys the stream and ends the run, nothing written", async () => {
    const stdin = new PassThrough();
    const { signal, interrupt } = interrupter("SIGTERM");
    const run = ingestFiles(options({ input: stdin, signal }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    interrupt();
    await expect(run).rejects.toMatchObject({ code: "input_refused", message: "interrupted by SIGTERM; nothing written" });
    expect(stdin.destroyed).toBe(true);
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });

  it("an abort whose reason is not a library error rejects with an input_refused error that keeps it as the cause", async () => {
    ollama.setLatency(2_000);
    const controller = new AbortController();
    const run = ingestFiles(options({ signal: controller.signal }));
    await firstChat(ollama);
    controller.abort("stop");
    await expect(run).rejects.toMatchObject({ code: "input_refused", message: "interrupted; nothing written", cause: "stop" });
    expect((await dirState(dir)).files).toEqual(["in.jsonl"]);
  });
});

describe("leftovers and verify", () => {
  it("verify reports a manifest whose requested export is missing (export_missing)", async () => {
    await ingestFiles(options());
    // What a crash between two non-cooperating tools, or a lost file, leaves behind.
    await unlink(join(dir, "e.json"));
    const verified = await verifyPair("m.json", null);
    expect(verified.consistent).toBe(false);
    expect(verified.problems.map((problem) => problem.code)).toContain("export_missing");
  });

  it("an export left without its manifest (kill -9 mid-publication) is not a pair: verify cannot read it", async () => {
    await ingestFiles(options());
    await unlink(join(dir, "m.json"));
    const verified = await verifyPair();
    expect(verified.readable).toBe(false);
  });
});

/** The value of a run that must have succeeded; rethrows its error otherwise. */
function fulfilled<T>(outcome: PromiseSettledResult<T>): T {
  if (outcome.status === "rejected") throw outcome.reason;
  return outcome.value;
}
