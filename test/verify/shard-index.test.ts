// buildShardIndex and verifyShardIndex as library calls: pairs given as objects, the canonical
// index they write, and a failed write that leaves the previous index as it was.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LittleCanaryError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/hash.js";
import { buildShardIndex, verifyShardIndex } from "../../src/index.js";
import { parseShardPairArgument } from "../../src/verbs/build-shard-index.js";
import { hookedFs, injectedFsError } from "../../bench/_fs-hooks.js";
import { nodePublishFs } from "../../src/publish/fs.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

let canary: OllamaStandIn;
let dir: string;
const pairs = [0, 1].map((k) => ({ manifest: `m${k}.json`, export: `e${k}.json` }));

beforeAll(async () => {
  canary = await startOllamaStandIn({ reply: "Here is a short summary of the document.", contextLength: 32768 });
  dir = mkdtempSync(join(tmpdir(), "lc-shard-index-"));
  writeFileSync(join(dir, "in.jsonl"), `${["a", "b", "c"].map((t) => JSON.stringify({ text: `record ${t}` })).join("\n")}\n`);
  for (const k of [0, 1]) {
    const run = await runCli(["ingest", "in.jsonl", "--shard", `${k}/2`, "--manifest", `m${k}.json`, "--export", `e${k}.json`, "--ollama-url", canary.url], {
      cwd: dir,
    });
    expect(run.code, run.stderr).toBe(0);
  }
});
afterAll(async () => {
  await canary.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("buildShardIndex and verifyShardIndex", () => {
  it("the index written is canonical, its SHA-256 is returned, and verifyShardIndex accepts it against that pin", async () => {
    const built = await buildShardIndex({ out: "index.json", pairs, cwd: dir });
    expect(built.written).toBe(true);
    expect(built.problems).toEqual([]);
    const bytes = readFileSync(join(dir, "index.json"));
    expect(built.indexSha256).toBe(sha256Hex(bytes));
    expect(built.index?.shards.map((s) => [s.k, s.first_line, s.lines, s.records_total])).toEqual([
      [0, 1, 1, 1],
      [1, 2, 2, 2],
    ]);
    const verified = await verifyShardIndex({ index: "index.json", expectIndexSha256: built.indexSha256, cwd: dir });
    expect(verified).toEqual({ consistent: true, readable: true, indexSha256: built.indexSha256, pinned: true, shards: 2, problems: [], notes: [] });
    expect(() => parseShardPairArgument("m.json")).toThrow(/MANIFEST:EXPORT/);
  });

  it("options of the wrong type or name are a UsageError naming the option; the pin is named as the caller named it", async () => {
    const built = await buildShardIndex({ out: "index-options.json", pairs, cwd: dir });
    const refused = async (call: () => Promise<unknown>, words: string): Promise<void> => {
      await expect(call()).rejects.toThrow(LittleCanaryError);
      await expect(call()).rejects.toThrow(words);
    };
    // A misspelt pin would otherwise have verified the index unpinned.
    await refused(
      () => verifyShardIndex({ index: "index-options.json", expectIndexSHA256: "0".repeat(64), cwd: dir } as never),
      `unknown verifyShardIndex option "expectIndexSHA256"; did you mean 'expectIndexSha256'?`,
    );
    await refused(() => verifyShardIndex(undefined as never), "verifyShardIndex options must be an object");
    await refused(() => verifyShardIndex({} as never), "index must be a non-empty path string");
    await refused(() => verifyShardIndex({ index: "index-options.json", cwd: 5 } as never), "cwd must be a path string");
    await refused(() => verifyShardIndex({ index: "index-options.json", cwd: dir, onProgress: 5 } as never), "onProgress must be a function");
    await refused(() => verifyShardIndex({ index: "index-options.json", expectIndexSha256: "zz", cwd: dir }), "expectIndexSha256 must be 64 hex digits");
    const wrong = await verifyShardIndex({ index: "index-options.json", expectIndexSha256: "0".repeat(64), cwd: dir });
    expect(wrong.problems.map((p) => p.message)).toEqual(["index sha256 does not match expectIndexSha256"]);
    // A throwing callback is the caller's own error, not an unreadable shard.
    const boom = new Error("progress display failed");
    await expect(
      verifyShardIndex({
        index: "index-options.json",
        expectIndexSha256: built.indexSha256,
        cwd: dir,
        onProgress: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    await refused(() => buildShardIndex({ out: "x.json", pairs, cwd: dir, overwrit: true } as never), `unknown buildShardIndex option "overwrit"`);
    await refused(() => buildShardIndex({ out: "x.json", pairs: "m0.json:e0.json", cwd: dir } as never), "pairs must be an array");
    await refused(
      () => buildShardIndex({ out: "x.json", pairs: [null], cwd: dir } as never),
      "pairs[0] must be a MANIFEST:EXPORT string or { manifest, export }",
    );
    await refused(() => buildShardIndex({ output: "x.json", pairs, cwd: dir } as never), `unknown buildShardIndex option "output"`);
    await refused(() => buildShardIndex({ pairs, cwd: dir } as never), "out must be a non-empty path string");
  });

  it("a shard whose policy differs from the others is reported for that, and not as missing too", async () => {
    const odd = await runCli(
      ["ingest", "in.jsonl", "--shard", "1/2", "--max-items", "50", "--manifest", "m1-policy.json", "--export", "e1-policy.json", "--ollama-url", canary.url],
      { cwd: dir },
    );
    expect(odd.code, odd.stderr).toBe(0);
    const built = await buildShardIndex({
      out: "index-policy.json",
      pairs: [pairs[0] as (typeof pairs)[0], { manifest: "m1-policy.json", export: "e1-policy.json" }],
      cwd: dir,
    });
    expect(built.written).toBe(false);
    expect(built.problems.map((p) => p.code)).toEqual(["shard_policy_mismatch"]);
  });

  it("verifyShardIndex tells how far reading every listed pair got, up to all their bytes", async () => {
    const built = await buildShardIndex({ out: "progress-index.json", pairs, cwd: dir });
    const calls: Array<[number, number]> = [];
    const verified = await verifyShardIndex({ index: "progress-index.json", cwd: dir, onProgress: (read, total) => calls.push([read, total]) });
    expect(verified.consistent).toBe(true);
    expect(built.written).toBe(true);
    const all = pairs.reduce((sum, pair) => sum + readFileSync(join(dir, pair.manifest)).length + readFileSync(join(dir, pair.export)).length, 0);
    expect(new Set(calls.map(([, total]) => total))).toEqual(new Set([all]));
    const reads = calls.map(([read]) => read);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
    expect(reads.at(-1)).toBe(all);
    // The first pair's bytes are told before the second's begin.
    const first = readFileSync(join(dir, "m0.json")).length + readFileSync(join(dir, "e0.json")).length;
    expect(reads).toContain(first);
  });

  it("verifyShardIndex tells onStrictRead which listed pair is read again by the strict reader, and only that one", async () => {
    // A space before the export document: not the layout ingest writes, still a consistent pair.
    writeFileSync(join(dir, "e1-spaced.json"), ` ${readFileSync(join(dir, "e1.json"), "utf8")}`);
    const built = await buildShardIndex({
      out: "spaced-index.json",
      pairs: [pairs[0] as (typeof pairs)[0], { manifest: "m1.json", export: "e1-spaced.json" }],
      cwd: dir,
    });
    expect(built.problems).toEqual([]);
    const told: Array<[string, number]> = [];
    const verified = await verifyShardIndex({ index: "spaced-index.json", cwd: dir, onStrictRead: (manifest, total) => told.push([manifest, total]) });
    expect(verified.consistent).toBe(true);
    const bytes = readFileSync(join(dir, "m1.json")).length + readFileSync(join(dir, "e1-spaced.json")).length;
    expect(told).toEqual([['"m1.json"', bytes]]);
  });

  it("an index that does not match its pin is refused before any file it names is opened", async () => {
    const built = await buildShardIndex({ out: "pinned-index.json", pairs, cwd: dir });
    const text = readFileSync(join(dir, "pinned-index.json"), "utf8");
    // The paths are rewritten to lead outside the index's directory, to a file that does not exist:
    // had it been opened, its pair would be reported unreadable.
    writeFileSync(join(dir, "pinned-index.json"), text.replaceAll('"m0.json"', '"../../outside/secret.json"'));
    const verified = await verifyShardIndex({ index: "pinned-index.json", expectIndexSha256: built.indexSha256, cwd: dir });
    expect(verified.consistent).toBe(false);
    expect(verified.problems.map((p) => p.code)).toEqual(["index_sha256"]);
    const unpinned = await verifyShardIndex({ index: "pinned-index.json", cwd: dir });
    expect(unpinned.problems.map((p) => p.code)).toContain("shard_unreadable");
  });

  it("a failed write throws a publish error and leaves the previous index as it was", async () => {
    const previous = readFileSync(join(dir, "index.json"));
    const fs = hookedFs(nodePublishFs, (call) => {
      if (call.op === "rename") throw injectedFsError("ENOSPC", call);
    });
    const failed = buildShardIndex({ out: "index.json", pairs, cwd: dir, fs });
    await expect(failed).rejects.toThrow(LittleCanaryError);
    await expect(failed).rejects.toThrow('could not write the index "index.json" (ENOSPC); no index written');
    expect(readFileSync(join(dir, "index.json")).equals(previous)).toBe(true);
    writeFileSync(join(dir, "index.json"), "previous");
    // Not JSON: unreadable, as verify treats a manifest that does not parse.
    const unreadable = await verifyShardIndex({ index: "index.json", cwd: dir });
    expect(unreadable.readable).toBe(false);
    expect(unreadable.problems.map((p) => p.code)).toEqual(["index_unreadable"]);
    writeFileSync(join(dir, "index.json"), "{}");
    const invalid = await verifyShardIndex({ index: "index.json", cwd: dir });
    expect(invalid).toMatchObject({ readable: true, consistent: false, shards: 0 });
    expect(invalid.problems.map((p) => p.code)).toEqual(["index_invalid"]);
  });

  it("an existing file at --out that is not an index (the input, a manifest) is never replaced", async () => {
    for (const out of ["in.jsonl", "m0.json"]) {
      const before = readFileSync(join(dir, out));
      await expect(buildShardIndex({ out, pairs: pairs.slice(1), cwd: dir })).rejects.toThrow(
        `index: --out "${out}" exists and is not a little-canary-ingest-index/v1 document; it is never replaced`,
      );
      expect(readFileSync(join(dir, out)).equals(before)).toBe(true);
    }
  });

  it("an empty file at --out (a script's mktemp) is replaced by the index", async () => {
    writeFileSync(join(dir, "empty-out.json"), "");
    const built = await buildShardIndex({ out: "empty-out.json", pairs, cwd: dir });
    expect(built.problems).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, "empty-out.json"), "utf8")).schema).toBe("little-canary-ingest-index/v1");
  });
});
