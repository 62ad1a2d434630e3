// Ingest runs with a verdict cache, end to end through the CLI: a re-run reuses every verdict
// and makes no canary call, a changed record is checked again, degraded results are never
// reused, a pipeline without an identity runs uncached and says so, two runs share one cache
// file at once, and a run killed with SIGKILL resumes repeating at most the checks in flight.
import { existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CALIBRATION_PROBE_TEXT } from "../../src/canary/run-context.js";
import { runCli } from "../support/cli.js";
import { bundleCli, type BundledCli } from "../support/cli-child.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { tempDir } from "../support/publish-fixtures.js";

interface Segment {
  readonly sha256: string;
  readonly state: string;
  readonly reused?: true;
  readonly checked_at?: string;
  readonly latency: number | null;
  readonly verdict: unknown;
}
interface Manifest {
  readonly run: { readonly checks_performed: number; readonly cache?: { hits: number; misses: number } };
  readonly records: ReadonlyArray<{ readonly segments: readonly Segment[]; readonly admission: string }>;
}

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "A short summary of the text." });
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

const records = (n: number, salt = ""): string =>
  `${Array.from({ length: n }, (_, i) => JSON.stringify({ id: `r${i}`, text: `Ordinary record ${i} about the quarterly figures${i === 2 ? salt : ""}.` })).join("\n")}\n`;
const ingest = (manifest: string, extra: string[] = [], input = "in.jsonl") =>
  runCli(["ingest", input, "--manifest", manifest, "--ollama-url", ollama.url, "--canary-model", "qwen2.5:1.5b", "--cache", "v.sqlite", ...extra], {
    cwd: dir,
  });
const manifestOf = async (name: string): Promise<Manifest> => JSON.parse(await readFile(join(dir, name), "utf8")) as Manifest;
const segmentsOf = (m: Manifest): Segment[] => m.records.flatMap((r) => r.segments);
/** Chat requests from `from` on that are checks (every chat but the context gate's warm-up). */
const checksSince = (from: number) =>
  ollama
    .chatRequests()
    .slice(from)
    .filter((r) => !JSON.stringify(r.body).includes(CALIBRATION_PROBE_TEXT));

describe("ingest with --cache", () => {
  it("a re-run of the same records makes no canary call and marks every segment reused with its original checked_at", async () => {
    await writeFile(join(dir, "in.jsonl"), records(6));
    const first = await ingest("m1.json");
    expect(first.code).toBe(0);
    const calls = ollama.chatRequests().length;
    const m1 = await manifestOf("m1.json");
    const segments = segmentsOf(m1).length;
    expect(segments).toBeGreaterThanOrEqual(6);
    expect(m1.run.cache).toEqual({ hits: 0, misses: segments });
    expect(segmentsOf(m1).some((s) => s.reused !== undefined)).toBe(false);

    const second = await ingest("m2.json");
    expect(second.code).toBe(0);
    // Only the context gate's warm-up reaches the backend; no check does.
    expect(checksSince(calls)).toHaveLength(0);
    const m2 = await manifestOf("m2.json");
    expect(m2.run.cache).toEqual({ hits: segments, misses: 0 });
    expect(m2.run.checks_performed).toBe(0);
    const [a, b] = [segmentsOf(m1), segmentsOf(m2)];
    b.forEach((segment, i) => {
      expect(segment.reused).toBe(true);
      expect(segment.checked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      // The evidence is the original check's, verdict and latency included.
      expect(segment.verdict).toEqual(a[i]?.verdict);
      expect(segment.latency).toBe(a[i]?.latency);
    });
    // A manifest with reused verdicts verifies like any other.
    const verified = await runCli(["verify", "--manifest", "m2.json"], { cwd: dir });
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: "" });
    // A reused segment without its checked_at (or a checked_at without reused) does not verify.
    const text = await readFile(join(dir, "m2.json"), "utf8");
    await writeFile(join(dir, "m3.json"), text.replace(/"checked_at":"[^"]*",/, ""));
    const tampered = await runCli(["verify", "--manifest", "m3.json"], { cwd: dir });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout + tampered.stderr).toContain("recorded state does not match its segments");
  });

  it("a changed record is checked again and only its segment misses", async () => {
    await writeFile(join(dir, "in.jsonl"), records(5));
    expect((await ingest("m1.json")).code).toBe(0);
    await writeFile(join(dir, "in2.jsonl"), records(5, " and one changed clause"));
    const before = ollama.chatRequests().length;
    expect((await ingest("m2.json", [], "in2.jsonl")).code).toBe(0);
    const sent = checksSince(before);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]?.body)).toContain("one changed clause");
    const segments = segmentsOf(await manifestOf("m1.json")).length;
    expect((await manifestOf("m2.json")).run.cache).toEqual({ hits: segments - 1, misses: 1 });
  });

  it("a degraded result is never stored, so the next run checks that segment again", async () => {
    await writeFile(join(dir, "in.jsonl"), records(3));
    ollama.setReply((request) => (JSON.stringify(request.body).includes("record 1 ") ? { status: 500 } : { content: "A short summary of the text." }));
    const first = await ingest("m1.json");
    expect(first.code).toBe(2);
    ollama.setReply({ content: "A short summary of the text." });
    expect((await ingest("m2.json")).code).toBe(0);
    const segments = segmentsOf(await manifestOf("m1.json")).length;
    expect((await manifestOf("m2.json")).run.cache).toEqual({ hits: segments - 1, misses: 1 });
  });

  it("with --no-canary the cache is not used, a warning says why, and the manifest records no cache", async () => {
    await writeFile(join(dir, "in.jsonl"), records(2));
    const run = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--no-canary", "--cache", "v.sqlite"], { cwd: dir });
    expect(run.stderr).toMatch(/warning: the verdict cache .*v\.sqlite is not used for this run: the canary is disabled.*\(the file was not opened\)/);
    expect((await manifestOf("m.json")).run.cache).toBeUndefined();
    // Nothing the run checks could be stored, so no cache file is created.
    expect(existsSync(join(dir, "v.sqlite"))).toBe(false);
  });

  it("a file that is not a verdict cache refuses the run before anything is read, and is left as it was", async () => {
    await writeFile(join(dir, "in.jsonl"), records(2));
    await writeFile(join(dir, "v.sqlite"), "not a database at all\n");
    const run = await ingest("m.json");
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("v.sqlite");
    expect(await readFile(join(dir, "v.sqlite"), "utf8")).toBe("not a database at all\n");
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("--no-cache after --cache runs without it", async () => {
    await writeFile(join(dir, "in.jsonl"), records(2));
    const run = await ingest("m.json", ["--no-cache"]);
    expect(run.code).toBe(0);
    expect((await manifestOf("m.json")).run.cache).toBeUndefined();
  });
});

describe("runs in separate processes", () => {
  let cli: BundledCli;
  beforeAll(async () => {
    cli = await bundleCli();
  }, 120_000);
  afterAll(async () => cli.dispose());

  const child = (args: string[]) =>
    spawn(process.execPath, [cli.entry, "ingest", ...args, "--ollama-url", ollama.url, "--canary-model", "qwen2.5:1.5b", "--cache", "v.sqlite"], {
      cwd: dir,
      env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  const finished = (proc: ReturnType<typeof child>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> =>
    new Promise((resolve) => {
      let stderr = "";
      proc.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      proc.on("close", (code, signal) => resolve({ code, signal, stderr }));
    });

  it("two runs share one cache file at once; both succeed and every verdict is stored", async () => {
    await writeFile(join(dir, "a.jsonl"), records(12));
    await writeFile(join(dir, "b.jsonl"), records(12, " in the second corpus"));
    ollama.setLatency(20);
    const [a, b] = await Promise.all([
      finished(child(["a.jsonl", "--manifest", "ma.json", "--concurrency", "3"])),
      finished(child(["b.jsonl", "--manifest", "mb.json", "--concurrency", "3"])),
    ]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    // One more run over each input reuses every segment, whichever run stored it.
    ollama.setLatency(0);
    expect((await ingest("ma2.json", [], "a.jsonl")).code).toBe(0);
    expect((await ingest("mb2.json", [], "b.jsonl")).code).toBe(0);
    const segments = segmentsOf(await manifestOf("ma.json")).length;
    expect((await manifestOf("ma2.json")).run.cache).toEqual({ hits: segments, misses: 0 });
    expect((await manifestOf("mb2.json")).run.cache).toEqual({ hits: segments, misses: 0 });
  }, 60_000);

  it("a run killed with SIGKILL and run again repeats at most the checks that were in flight", async () => {
    const total = 40;
    const concurrency = 4;
    await writeFile(join(dir, "in.jsonl"), records(total));
    ollama.setLatency(40);
    const checks = () => checksSince(0).length;
    const proc = child(["in.jsonl", "--manifest", "m.json", "--concurrency", String(concurrency)]);
    const done = finished(proc);
    while (checks() < 15) await new Promise((resolve) => setTimeout(resolve, 5));
    proc.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    const beforeResume = checks();
    ollama.setLatency(0);
    // Another manifest path: the killed run's lock on m.json stays until it goes stale (20 s);
    // the cache is what carries the work over.
    const resumed = await ingest("m2.json", ["--concurrency", String(concurrency)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const needed = segmentsOf(await manifestOf("m2.json")).filter((seg) => seg.state !== "not_checked").length;
    const repeated = checks() - needed;
    expect(repeated).toBeGreaterThanOrEqual(0);
    expect(repeated).toBeLessThanOrEqual(concurrency);
    expect(beforeResume).toBeGreaterThanOrEqual(15);
  }, 60_000);
});
