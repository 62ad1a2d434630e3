// The verdict cache across real processes: a writer killed with SIGKILL keeps every put it
// completed (WAL, one transaction per put), and two writers on one file at once both succeed.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { VerdictCache } from "../../src/cache/verdict-cache.js";
import { sha256Hex } from "../../src/core/hash.js";
import { testIdentity } from "../support/cache-identity.js";
import { bundleScript, type BundledCli } from "../support/cli-child.js";

let writer: BundledCli;
let dir: string;
beforeAll(async () => {
  writer = await bundleScript(resolve(import.meta.dirname, "../support/cache-writer.ts"));
}, 120_000);
afterAll(() => writer.dispose());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-cache-proc-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Writer {
  /** Indices the child reported as put, in order. */
  readonly acked: number[];
  /** When the first and the latest put were reported (ms). */
  readonly times: { first: number; last: number };
  /** With another writer named: how many puts it had reported when it saw that writer's first put. */
  readonly overlapping: number | null;
  /** Resolves when the child opened the cache and waits for the go file. */
  readonly ready: Promise<void>;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; finished: boolean }>;
  kill(): void;
  /** Resolves once at least `n` puts were reported. */
  after(n: number): Promise<void>;
}

function startWriter(cache: string, prefix: string, count: number, delayMs: number, goFile?: string, otherPrefix?: string): Writer {
  const args = [
    writer.entry,
    cache,
    prefix,
    String(count),
    String(delayMs),
    ...(goFile === undefined ? [] : [goFile]),
    ...(otherPrefix === undefined ? [] : [otherPrefix]),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const acked: number[] = [];
  const times = { first: Number.NaN, last: Number.NaN };
  let finished = false;
  // How many puts the writer had reported when it saw the other writer's first put (null: never).
  let overlapping: number | null = null;
  let readyResolve: () => void = () => {};
  const ready = new Promise<void>((resolveReady) => {
    readyResolve = resolveReady;
  });
  let partial = "";
  let stderr = "";
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "done") finished = true;
      else if (line === "ready") readyResolve();
      else if (line === "overlapping") overlapping = acked.length;
      else {
        acked.push(Number(line));
        times.last = Date.now();
        if (Number.isNaN(times.first)) times.first = times.last;
      }
    }
    for (const w of waiters.splice(0)) {
      if (acked.length >= w.n) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; finished: boolean }>((resolveDone) =>
    child.on("close", (code, signal) => resolveDone({ code, signal, stderr, finished })),
  );
  return {
    acked,
    times,
    get overlapping() {
      return overlapping;
    },
    ready,
    done,
    kill: () => child.kill("SIGKILL"),
    after: (n) => new Promise((resolveAfter) => (acked.length >= n ? resolveAfter() : waiters.push({ n, resolve: resolveAfter }))),
  };
}

const key = testIdentity().key;

describe("verdict cache across processes", () => {
  it("a writer killed with SIGKILL mid-run keeps every completed put; a re-run finds them all", async () => {
    const path = join(dir, "cache.sqlite");
    const run = startWriter(path, "k", 100_000, 1);
    await run.after(60);
    run.kill();
    const end = await run.done;
    expect(end.signal).toBe("SIGKILL");
    expect(end.finished).toBe(false);
    const acked = [...run.acked];
    expect(acked.length).toBeGreaterThanOrEqual(60);
    const cache = VerdictCache.open(path);
    try {
      for (const i of acked) expect(cache.get(sha256Hex(`k-${i}`), key), `put ${i}`).toEqual(expect.objectContaining({ value: { writer: "k", i } }));
      // At most the put in flight at the kill is beyond what was acknowledged.
      const entries = cache.stats().entries;
      expect(entries).toBeGreaterThanOrEqual(acked.length);
      expect(entries).toBeLessThanOrEqual(acked.length + 1);
    } finally {
      cache.close();
    }
  }, 60_000);

  it("two processes writing one new cache file at once both succeed and every entry is there", async () => {
    const path = join(dir, "shared.sqlite");
    // Enough puts for the two writers to overlap for a while (asserted below), few enough that
    // SQLite's busy back-off between two tight write loops stays far inside the time limit on
    // a loaded 2-core machine.
    const count = 400;
    const go = join(dir, "go");
    const [a, b] = [startWriter(path, "a", count, 0, go, "b"), startWriter(path, "b", count, 0, go, "a")];
    await Promise.all([a.ready, b.ready]);
    writeFileSync(go, "");
    const [endA, endB] = await Promise.all([a.done, b.done]);
    expect(endA, endA.stderr).toMatchObject({ code: 0, finished: true });
    expect(endB, endB.stderr).toMatchObject({ code: 0, finished: true });
    // The two writers really ran at the same time: each saw the other's first put after its own
    // first and before the rest of its own (an order the writers establish, not a clock).
    expect([a.overlapping, b.overlapping]).toEqual([1, 1]);
    const cache = VerdictCache.open(path, { readonly: true });
    try {
      expect(cache.stats()).toMatchObject({ entries: 2 * count, identities: [{ key, entries: 2 * count }] });
      for (const prefix of ["a", "b"]) {
        for (let i = 0; i < count; i++) expect(cache.get(sha256Hex(`${prefix}-${i}`), key)?.value, `${prefix}-${i}`).toEqual({ writer: prefix, i });
      }
    } finally {
      cache.close();
    }
  }, 120_000);
});
