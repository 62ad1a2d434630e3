// The record prefetch (src/ingest/record-prefetch.ts): a warm run whose stored record entries
// were read on the worker thread during the first pass publishes the same bytes as a run that
// looks each one up itself; only the entry stored under the run's own identity is taken; an
// entry that does not read back, a worker that fails and a worker that falls behind leave the
// records to the run's own lookup; the batch reader caps what it reads per key.
import { createHash } from "node:crypto";
import { copyFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { packJson, unpackJson } from "../../src/cache/stored-json.js";
import { VerdictCache, RECORD_KEYS_PER_READ } from "../../src/cache/verdict-cache.js";
import { canaryNumCtxForPolicy, SecurityPipeline } from "../../src/index.js";
import { ingestFiles } from "../../src/ingest/files.js";
import type { IngestFilesOptions } from "../../src/ingest/run-plan.js";
import { recordEntryKeyOf, storedRecordEntry } from "../../src/ingest/record-cache.js";
import { MAX_IDENTITIES, prefetchBatch } from "../../src/ingest/record-prefetch-batch.js";
import { RecordPrefetch, type RecordPrefetchStats } from "../../src/ingest/record-prefetch.js";
import { entryFacts } from "../../src/ingest/run-summary.js";
import { STRICT_V1 } from "../../src/documents/policy.js";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { manifestFacts, type ManifestDocument } from "../../src/documents/manifest-v2.js";
import { startFallingCanary, withSqlite } from "../support/cache-runs.js";
import { testIdentity } from "../support/cache-identity.js";
import type { OllamaStandIn } from "../support/ollama-stand-in.js";
import { bundledPrefetchWorker, crashingWorker, slowEmptyWorker } from "../support/prefetch-workers.js";
import { ingestOptions, tempDir } from "../support/publish-fixtures.js";

let worker: { url: URL; dispose: () => Promise<void> };
beforeAll(async () => {
  worker = await bundledPrefetchWorker();
}, 60_000);
afterAll(async () => {
  await worker.dispose();
});

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startFallingCanary();
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

const clock = (): Date => new Date("2026-12-01T00:00:00.000Z");
const record = (i: number): string =>
  JSON.stringify({
    id: `r${i}`,
    text: `Ordinary record ${i} about the quarterly figures, with a café and 😀 in it.`,
    ...(i % 3 === 0 ? { metadata: { lang: "en", part: `p${i % 4}` } } : {}),
  });
// Two lines repeat earlier ones byte for byte (one record key, two positions), and the canary
// falls for one (a held record whose entry is reused too).
const LINES = [
  ...Array.from({ length: 40 }, (_, i) => record(i)),
  record(3),
  record(17),
  JSON.stringify({ id: "x1", text: "A travel note about zanzibar and its spice markets." }),
];
const corpus = (lines: readonly string[]): string => `${lines.join("\n")}\n`;

const pipelineFor =
  (model: string): IngestFilesOptions["pipeline"] =>
  (policy) =>
    new SecurityPipeline({ mode: "full", canaryModel: model, ollamaUrl: ollama.url, canaryTimeout: 10, canaryNumCtx: canaryNumCtxForPolicy(policy) });

/** One ingest run in `dir` with the cache `cache`; with `prefetch`, the bundled worker (or `workerUrl`) from any input size. */
async function run(
  name: string,
  cache: string,
  options: { prefetch?: boolean; workerUrl?: URL; model?: string; input?: string } = {},
): Promise<{ manifest: Buffer; exported: Buffer; stats: RecordPrefetchStats | null; chats: number }> {
  let stats: RecordPrefetchStats | null = null;
  const chatsBefore = ollama.chatRequests().length;
  await ingestFiles(
    ingestOptions(dir, ollama.url, {
      input: options.input ?? "in.jsonl",
      manifest: `${name}.json`,
      export: `${name}.export.json`,
      cache,
      clock,
      concurrency: 4,
      ...(options.model ? { pipeline: pipelineFor(options.model) } : {}),
      recordPrefetch: {
        minInputBytes: options.prefetch === true ? 0 : Number.MAX_SAFE_INTEGER,
        workerUrl: options.workerUrl ?? worker.url,
        onStats: (s) => {
          stats = s;
        },
      },
    }),
  );
  return {
    manifest: await readFile(join(dir, `${name}.json`)),
    exported: await readFile(join(dir, `${name}.export.json`)),
    stats,
    chats: ollama.chatRequests().length - chatsBefore,
  };
}

/** A prefetch (stopped by `signal`) whose worker answers every batch with no entries, after `delayMs`. */
async function slowPrefetch(delayMs: number, signal?: AbortSignal): Promise<RecordPrefetch> {
  const prefetch = await RecordPrefetch.start({
    cachePath: join(dir, "unused.sqlite"),
    settings: { policy: STRICT_V1 },
    besidePath: join(dir, "m.json"),
    workerUrl: await slowEmptyWorker(dir, delayMs),
    ...(signal ? { signal } : {}),
  });
  if (prefetch === null) throw new Error("the stand-in worker did not start");
  return prefetch;
}

const spools = async (): Promise<string[]> => (await readdir(dir)).filter((n) => n.endsWith(".spool"));

describe("the record prefetch", () => {
  it("a prefetched warm run publishes the bytes a run looking up each entry publishes, with every record prefetched", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    const plain = await run("plain", "v.sqlite");
    const fetched = await run("fetched", "v.sqlite", { prefetch: true });
    expect(plain.stats).toBeNull();
    expect({ plain: plain.chats, fetched: fetched.chats }).toEqual({ plain: 0, fetched: 0 });
    expect(fetched.stats).toEqual({ offered: LINES.length, answered: LINES.length, entries: LINES.length, failed: null });
    expect(fetched.manifest.equals(plain.manifest)).toBe(true);
    expect(fetched.exported.equals(plain.exported)).toBe(true);
    // The record the canary fell for is held in both, from its stored entry.
    const held = (JSON.parse(fetched.manifest.toString()) as { counts: { held: number } }).counts.held;
    expect(held).toBe(1);
    expect(await spools()).toEqual([]);
  });

  it("only the entry stored under the run's own identity is taken from the prefetch", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    // Both identities store an entry under every record key; their verdicts name their model.
    await run("cold-a", "v.sqlite", { model: "qwen2.5:1.5b" });
    await run("cold-b", "v.sqlite", { model: "qwen3:4b" });
    const identities = withSqlite(join(dir, "v.sqlite"), (db) => db.prepare("SELECT count(DISTINCT identity_id) FROM record_entries").pluck().get());
    expect(identities).toBe(2);
    const plainB = await run("plain-b", "v.sqlite", { model: "qwen3:4b" });
    const fetchedB = await run("fetched-b", "v.sqlite", { model: "qwen3:4b", prefetch: true });
    const fetchedA = await run("fetched-a", "v.sqlite", { model: "qwen2.5:1.5b", prefetch: true });
    const plainA = await run("plain-a", "v.sqlite", { model: "qwen2.5:1.5b" });
    expect(fetchedB.chats + fetchedA.chats).toBe(0);
    // Every record's entries under both identities were read; each run took its own.
    expect(fetchedB.stats?.entries).toBe(2 * LINES.length);
    expect(fetchedB.manifest.equals(plainB.manifest)).toBe(true);
    expect(fetchedA.manifest.equals(plainA.manifest)).toBe(true);
    expect(fetchedA.manifest.equals(fetchedB.manifest)).toBe(false);
  });

  it("a stored entry that does not read back is not prefetched, and the run rebuilds that record as it would without a prefetch", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    // A careless edit of one stored entry: its text no longer has its SHA-256.
    withSqlite(join(dir, "v.sqlite"), (db) => {
      const row = db.prepare("SELECT id, entry FROM record_entries ORDER BY id LIMIT 1").get() as { id: number; entry: Buffer };
      db.prepare("UPDATE record_entries SET entry = ? WHERE id = ?").run(
        packJson((unpackJson(row.entry) as string).replace('"latency":', '"latency":1')),
        row.id,
      );
    });
    await copyFile(join(dir, "v.sqlite"), join(dir, "w.sqlite"));
    const plain = await run("plain", "v.sqlite");
    const fetched = await run("fetched", "w.sqlite", { prefetch: true });
    expect(fetched.stats?.entries).toBe(LINES.length - 1);
    expect(fetched.chats).toBe(0);
    expect(fetched.manifest.equals(plain.manifest)).toBe(true);
  });

  it("a stored entry whose SHA-256 was recomputed after a line break or tab was put in it is refused by the lookup and the prefetch alike, and both runs publish the same bytes", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    // JSON allows a line break or tab between tokens; canonical JSON never has one, and the
    // prefetch's scratch file splits its lines on them.
    withSqlite(join(dir, "v.sqlite"), (db) => {
      const rows = db.prepare("SELECT id, entry FROM record_entries ORDER BY id LIMIT 2").all() as { id: number; entry: Buffer }[];
      const update = db.prepare("UPDATE record_entries SET entry = ?, entry_sha256 = ? WHERE id = ?");
      const edits = [(e: string) => e.replace('{"admission":', '{\n"admission":'), (e: string) => e.replace('{"admission":', '{\t"admission":')];
      rows.forEach((row, i) => {
        const stored = unpackJson(row.entry) as string;
        const edited = (edits[i] as (e: string) => string)(stored);
        expect(edited).not.toBe(stored);
        update.run(packJson(edited), createHash("sha256").update(edited).digest(), row.id);
      });
    });
    await copyFile(join(dir, "v.sqlite"), join(dir, "w.sqlite"));
    const plain = await run("plain", "v.sqlite");
    const fetched = await run("fetched", "w.sqlite", { prefetch: true });
    expect(fetched.stats?.entries).toBe(LINES.length - 2);
    expect(fetched.chats).toBe(plain.chats);
    expect(fetched.manifest.equals(plain.manifest)).toBe(true);
    expect(fetched.exported.equals(plain.exported)).toBe(true);
    expect(plain.manifest.includes(0x0a)).toBe(false);
    expect(plain.manifest.includes(0x09)).toBe(false);
    expect(await spools()).toEqual([]);
  });

  it("a changed record is checked and the others are prefetched; the manifest is the one a run without a prefetch writes", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    const changed = LINES.map((l, i) => (i === 5 ? JSON.stringify({ id: "r5", text: "A record rewritten since the last run." }) : l));
    await writeFile(join(dir, "in2.jsonl"), corpus(changed));
    await copyFile(join(dir, "v.sqlite"), join(dir, "w.sqlite"));
    const plain = await run("plain", "v.sqlite", { input: "in2.jsonl" });
    const fetched = await run("fetched", "w.sqlite", { input: "in2.jsonl", prefetch: true });
    expect(fetched.stats?.entries).toBe(LINES.length - 1);
    expect(fetched.chats).toBe(plain.chats);
    expect(fetched.chats).toBeGreaterThan(0);
    // The checked record's latency is measured (and named in its verdict's summary), so only it may
    // differ. Compared as facts (every v1 field of every record): a v2 manifest leaves a summary out
    // when it is the one its rounded latency gives, so whether the checked record's summary is
    // written depends on the latency measured, not on the prefetch.
    const unlatency = (bytes: Buffer): string => {
      const doc = JSON.parse(bytes.toString()) as ManifestDocument;
      // Canonical (sorted keys): a summary written out and one filled back in sit at other places.
      return canonicalJsonUnchecked({ ...doc, records: manifestFacts(doc) })
        .replace(/"(latency|total_latency)":[0-9.e-]+/g, "")
        .replace(/\([0-9.]+s\)/g, "");
    };
    expect(unlatency(fetched.manifest)).toBe(unlatency(plain.manifest));
  });

  it("a worker that fails, or is not there, leaves every record to the run's own lookup, with the same bytes", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    const plain = await run("plain", "v.sqlite");
    const crashed = await run("crashed", "v.sqlite", { prefetch: true, workerUrl: await crashingWorker(dir) });
    expect(crashed.stats).toMatchObject({ offered: LINES.length, entries: 0 });
    expect(crashed.stats?.failed).not.toBeNull();
    expect(crashed.manifest.equals(plain.manifest)).toBe(true);
    const missing = await run("missing", "v.sqlite", { prefetch: true, workerUrl: new URL("file:///nonexistent/record-prefetch-worker.js") });
    expect(missing.stats).toBeNull();
    expect(missing.manifest.equals(plain.manifest)).toBe(true);
    expect(await spools()).toEqual([]);
  });

  it("an abort while the first pass reads stops the worker and leaves no scratch file", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    const controller = new AbortController();
    let offered = 0;
    const running = ingestFiles(
      ingestOptions(dir, ollama.url, {
        cache: "v.sqlite",
        manifest: "aborted.json",
        export: "aborted.export.json",
        signal: controller.signal,
        reporter: { start: () => controller.abort(new Error("stop")) },
        recordPrefetch: { minInputBytes: 0, workerUrl: worker.url, onStats: (s) => void (offered = s.offered) },
      }),
    );
    await expect(running).rejects.toThrow();
    expect(offered).toBe(0);
    expect(await spools()).toEqual([]);
    expect((await readdir(dir)).filter((n) => n.startsWith("aborted"))).toEqual([]);
  });

  it("an abort ends the wait for a worker that does not answer, keeping what it had answered", async () => {
    const controller = new AbortController();
    const prefetch = await slowPrefetch(60_000, controller.signal);
    for (let i = 0; i < 10; i++) expect(prefetch.offer(i, "a".repeat(64))).toBeUndefined();
    setTimeout(() => controller.abort(), 50);
    // The worker answers after a minute, past the test's timeout: a finish at all, failed with
    // AbortError, shows the abort ended the wait.
    const entries = await prefetch.finish();
    expect(entries.stats).toEqual({ offered: 10, answered: 0, entries: 0, failed: "AbortError" });
    await entries.remove();
    expect(await spools()).toEqual([]);
  });

  it("an abort while the first pass waits for a worker that has fallen behind ends the run at once, with no scratch file left", async () => {
    // More planned records than may wait for the worker, which answers nothing for a minute.
    await writeFile(join(dir, "in.jsonl"), corpus(Array.from({ length: 6000 }, (_, i) => JSON.stringify({ id: `w${i}`, text: `Record ${i}.` }))));
    const controller = new AbortController();
    const running = ingestFiles(
      ingestOptions(dir, ollama.url, {
        cache: "v.sqlite",
        manifest: "stuck.json",
        policy: { max_items: 10_000 },
        signal: controller.signal,
        // The worker answers after two minutes, past this test's timeout: a run that waited for it
        // instead of ending at the abort fails by that timeout.
        recordPrefetch: { minInputBytes: 0, workerUrl: await slowEmptyWorker(dir, 120_000) },
      }),
    );
    let aborted = false;
    setTimeout(() => {
      aborted = true;
      controller.abort(new Error("stop"));
    }, 1_000);
    await expect(running).rejects.toThrow();
    // Not before the abort: the first pass was waiting for the worker.
    expect(aborted).toBe(true);
    expect(ollama.chatRequests()).toHaveLength(0);
    expect(await spools()).toEqual([]);
    expect((await readdir(dir)).filter((n) => n.startsWith("stuck"))).toEqual([]);
  }, 90_000);

  it("the first pass waits for a worker that falls behind instead of queueing every record", async () => {
    const prefetch = await slowPrefetch(20);
    let waits = 0;
    for (let i = 0; i < 6000; i++) {
      const wait = prefetch.offer(i, "a".repeat(64));
      if (wait !== undefined) {
        waits++;
        await wait;
      }
    }
    expect(waits).toBeGreaterThan(0);
    const entries = await prefetch.finish();
    expect(entries.stats).toEqual({ offered: 6000, answered: 6000, entries: 0, failed: null });
    expect(await entries.take(0, 1)).toBeNull();
    await entries.remove();
    expect(await spools()).toEqual([]);
  });
});

describe("reading stored entries in batches", () => {
  it("entries under several keys come back with their keys, at most perKey each, in identity order; too many keys are refused", async () => {
    const cache = VerdictCache.open(join(dir, "v.sqlite"), { clock });
    try {
      const keyOf = recordEntryKeyOf({ policy: STRICT_V1 });
      const [k1, k2] = [keyOf("1".repeat(64)), keyOf("2".repeat(64))];
      const identity = (n: number) => testIdentity(`model-${n}`);
      for (let n = 1; n <= MAX_IDENTITIES + 2; n++) {
        cache.putRecord({ recordKey: k1, identity: identity(n), entry: `{"n":${n}}`, oldestCheckedAt: "2026-12-01T00:00:00.000Z" });
      }
      cache.putRecord({ recordKey: k2, identity: identity(1), entry: '{"k":2}', oldestCheckedAt: "2026-12-01T00:00:00.000Z" });
      const rows = cache.recordEntriesUnder([k1, k2, keyOf("3".repeat(64))], MAX_IDENTITIES);
      expect(rows.filter((r) => r.recordKey === k1).map((r) => r.entry)).toEqual(Array.from({ length: MAX_IDENTITIES }, (_, i) => `{"n":${i + 1}}`));
      expect(rows.filter((r) => r.recordKey === k2).map((r) => r.entry)).toEqual(['{"k":2}']);
      expect(() => cache.recordEntriesUnder(Array(RECORD_KEYS_PER_READ + 1).fill(k1), 1)).toThrow(/at most/);
    } finally {
      cache.close();
    }
  });

  it("a batch leaves out stored entries that do not hold together", () => {
    // Entries that hold together come from a real run (the next test); here ones a batch refuses.
    const refused = ['{"index":0}', "not json", JSON.stringify({ index: 0, segments: [], length: 3 })];
    const source = {
      recordEntriesUnder: (keys: readonly string[]) =>
        keys.flatMap((recordKey) => refused.map((entry) => ({ recordKey, identityRowId: 1, entry, oldestCheckedAt: "2026-12-01T00:00:00.000Z" }))),
    };
    const { lines, entries } = prefetchBatch(
      source,
      [
        [0, "a".repeat(64)],
        [1, "b".repeat(64)],
      ],
      STRICT_V1,
    );
    expect({ bytes: lines.byteLength, entries }).toEqual({ bytes: 0, entries: 0 });
  });

  it("the lines of a batch carry the entry a lookup gives, at each position a repeated key has", async () => {
    await writeFile(join(dir, "in.jsonl"), corpus(LINES));
    await run("cold", "v.sqlite");
    const cache = VerdictCache.open(join(dir, "v.sqlite"), { mustExist: true });
    try {
      const row = withSqlite(
        join(dir, "v.sqlite"),
        (db) => db.prepare("SELECT lower(hex(record_key)) AS k FROM record_entries LIMIT 1").get() as { k: string },
      );
      const { lines, entries } = prefetchBatch(
        cache,
        [
          [7, row.k],
          [41, row.k],
        ],
        STRICT_V1,
      );
      expect(entries).toBe(2);
      const parsed = lines
        .toString()
        .trimEnd()
        .split("\n")
        .map((l) => l.split("\t"));
      const [stored] = cache.recordEntriesUnder([row.k], 1);
      for (const [[head, json], index] of parsed.map((p, i) => [p, [7, 41][i]] as const)) {
        const expected = storedRecordEntry(stored?.entry as string, index as number, STRICT_V1);
        expect(json).toBe(expected?.json);
        expect(JSON.parse(head as string)).toEqual({
          identity: stored?.identityRowId,
          index,
          segments: expected?.segments,
          facts: JSON.parse(JSON.stringify(entryFacts(expected?.entry as never))),
        });
      }
    } finally {
      cache.close();
    }
  });
});
