// --overwrite replaces a pair, never another manifest's export: two ingests with different
// manifests and the same export, run one after the other, must not leave the first manifest
// without its export.
import { readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { pairDocumentOf } from "../../src/publish/pair.js";
import { removePreviousPair } from "../../src/publish/publish.js";
import { sha256Hex } from "../../src/core/hash.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { RECORDS, ingestOptions, tempDir, verifyPairIn } from "../support/publish-fixtures.js";

/** The manifest sha256 the file at `path` is bound to, when it is an export, else null. */
const exportBinding = async (path: string): Promise<string | null> => {
  const document = await pairDocumentOf(path);
  return document?.kind === "export" ? document.manifestSha256 : null;
};

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "in.jsonl"), RECORDS);
  await writeFile(join(dir, "other.jsonl"), JSON.stringify({ text: "A different note about rivers." }) + "\n");
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

/** One run through the library: its outcome, or the message of the error that refused it. */
const ingest = (input: string, manifest: string, overwrite = false, exported = "e.json") =>
  ingestFiles(ingestOptions(dir, ollama.url, { input, manifest, overwrite, export: exported })).then(
    (result) => ({ code: result.outcome as number, error: "" }),
    (error: Error & { code?: string }) => ({ code: error.code === "publish" ? 3 : -1, error: error.message }),
  );
const verify = async (manifest: string) => ({ code: (await verifyPairIn(dir, manifest)).consistent ? 0 : 1 });

describe("pair identity under --overwrite", () => {
  it("a second ingest with another manifest and the same export is refused, naming the file; the first pair still verifies", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const before = await readFile(join(dir, "e.json"));
    const second = await ingest("other.jsonl", "m2.json", true);
    expect(second.code).toBe(3);
    expect(second.error).toContain(`refusing to replace --export ${join(dir, "e.json")}: it is the export of another manifest`);
    expect(second.error).toContain(`not of --manifest ${join(dir, "m2.json")}`);
    expect(await readFile(join(dir, "e.json"))).toEqual(before);
    await expect(readFile(join(dir, "m2.json"))).rejects.toThrow(/ENOENT/);
    expect((await verify("m1.json")).code).toBe(0);
  });

  it("the same manifest and export with --overwrite still replace their own pair", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const again = await ingest("other.jsonl", "m1.json", true);
    expect(again.error).toBe("");
    expect(again.code).toBe(0);
    expect((await verify("m1.json")).code).toBe(0);
  });

  it("an export whose manifest is gone is refused too, and replaced once the user deletes it", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    await unlink(join(dir, "m1.json"));
    const refused = await ingest("other.jsonl", "m2.json", true);
    expect(refused.code).toBe(3);
    expect(refused.error).toContain("delete");
    await unlink(join(dir, "e.json"));
    expect((await ingest("other.jsonl", "m2.json", true)).code).toBe(0);
    expect((await verify("m2.json")).code).toBe(0);
  });

  it("an export reformatted by another tool, which still verifies, is refused like the canonical one; the first pair still verifies", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const canonical = JSON.parse(await readFile(join(dir, "e.json"), "utf8")) as Record<string, unknown>;
    // Indented, and its members in another order than the canonical one (records first).
    const { records, ...head } = canonical;
    await writeFile(join(dir, "e.json"), `\n${JSON.stringify({ records, ...head }, null, 2)}\n`);
    const reformatted = await readFile(join(dir, "e.json"));
    expect((await verify("m1.json")).code).toBe(0);
    const second = await ingest("other.jsonl", "m2.json", true);
    expect(second.code).toBe(3);
    expect(second.error).toContain("it is the export of another manifest");
    expect(await readFile(join(dir, "e.json"))).toEqual(reformatted);
    expect((await verify("m1.json")).code).toBe(0);
  });

  it("a JSON document that only looks like an export (an unknown manifest schema, a short hash, broken JSON before the members, a duplicate) binds to nothing", async () => {
    const path = join(dir, "e.json");
    const sha = "a".repeat(64);
    const cases: Array<[string, string | null]> = [
      [JSON.stringify({ records: [], manifest_sha256: sha, manifest_schema: "little-canary-ingest-manifest/v1" }, null, 1), sha],
      [JSON.stringify({ manifest_sha256: sha, manifest_schema: "little-canary-ingest-manifest/v9", records: [] }, null, 1), null],
      [JSON.stringify({ manifest_sha256: "abc", manifest_schema: "little-canary-ingest-manifest/v1" }, null, 1), null],
      [` {"manifest_schema":"little-canary-ingest-manifest/v1","manifest_sha256":"${sha}","records":[`, sha],
      [` {"manifest_schema":"little-canary-ingest-manifest/v1","manifest_sha256":"${sha}","manifest_sha256":"${sha}"}`, null],
      [` [{"manifest_schema":"little-canary-ingest-manifest/v1","manifest_sha256":"${sha}"}]`, null],
      [` {"manifest_schema":"little-canary-ingest-manifest/v1",,"manifest_sha256":"${sha}","records":[]}`, null],
      // Both members before the records decide at once, even if the rest is broken: keeping such a file is the cautious side.
      [`{ "manifest_schema": "little-canary-ingest-manifest/v3", "manifest_sha256": "${sha}", "records": [ {"text": "a"}, `, sha],
    ];
    for (const [text, bound] of cases) {
      await writeFile(path, text);
      expect(await exportBinding(path)).toBe(bound);
    }
  });

  it("a file at the export path that is not an export of this package is replaced as before", async () => {
    await writeFile(join(dir, "e.json"), '{"old":"export"}');
    const run = await ingestFiles(ingestOptions(dir, ollama.url, { manifest: "m2.json", overwrite: true }));
    expect(run.outcome).toBe(0);
    expect((await verify("m2.json")).code).toBe(0);
  });

  it("an export named as --manifest is refused under --overwrite, naming it, and its pair still verifies", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const before = await readFile(join(dir, "e.json"));
    const swapped = await ingest("other.jsonl", "e.json", true, "q.json");
    expect(swapped.code).toBe(3);
    expect(swapped.error).toContain(`refusing to replace --manifest ${join(dir, "e.json")}: it is an export (of manifest_sha256 `);
    expect(await readFile(join(dir, "e.json"))).toEqual(before);
    await expect(readFile(join(dir, "q.json"))).rejects.toThrow(/ENOENT/);
    expect((await verify("m1.json")).code).toBe(0);
    // Without an export path too.
    const alone = await ingestFiles(ingestOptions(dir, ollama.url, { input: "other.jsonl", manifest: "e.json", export: null, overwrite: true })).catch(
      (error: Error) => error.message,
    );
    expect(alone).toContain(`refusing to replace --manifest ${join(dir, "e.json")}: it is an export`);
    expect(await readFile(join(dir, "e.json"))).toEqual(before);
  });

  it("a manifest named as --export is refused under --overwrite, naming it, and its pair still verifies", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const before = await readFile(join(dir, "m1.json"));
    const swapped = await ingest("other.jsonl", "q.json", true, "m1.json");
    expect(swapped.code).toBe(3);
    expect(swapped.error).toContain(`refusing to replace --export ${join(dir, "m1.json")}: it is a manifest, not an export`);
    expect(await readFile(join(dir, "m1.json"))).toEqual(before);
    await expect(readFile(join(dir, "q.json"))).rejects.toThrow(/ENOENT/);
    expect((await verify("m1.json")).code).toBe(0);
  });

  it("tells a manifest from an export and from neither, canonical or reformatted, by the members that decide", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, "m1.json"), "utf8")) as Record<string, unknown>;
    const path = join(dir, "doc.json");
    const sha = "b".repeat(64);
    const { records, ...head } = manifest;
    const cases: Array<[string, Awaited<ReturnType<typeof pairDocumentOf>>]> = [
      [await readFile(join(dir, "m1.json"), "utf8"), { kind: "manifest" }],
      // Reformatted with the records first: its schema member decides, at the end.
      [JSON.stringify({ records, ...head }, null, 2), { kind: "manifest" }],
      // Its own members before the records decide before a broken rest is read.
      [`{"counts":{},"pipeline":{},"policy":{},"records":[{"broken"`, { kind: "manifest" }],
      [`{"counts":{},"policy":{},"records":[]}`, null],
      [JSON.stringify({ schema: "little-canary-ingest-manifest/v9", records: [] }), null],
      [await readFile(join(dir, "e.json"), "utf8"), { kind: "export", manifestSha256: sha256Hex(await readFile(join(dir, "m1.json"))) }],
      // A member neither document has, before the records: neither, whatever follows.
      [`{"other":1,"records":[],"manifest_schema":"little-canary-ingest-manifest/v1","manifest_sha256":"${sha}"}`, null],
      ['{"old":"export"}', null],
      // A byte order mark in front (a re-save by an editor) hides neither document.
      [`\ufeff${await readFile(join(dir, "m1.json"), "utf8")}`, { kind: "manifest" }],
      [`\ufeff${JSON.stringify({ records, ...head }, null, 2)}`, { kind: "manifest" }],
      [`\ufeff${await readFile(join(dir, "e.json"), "utf8")}`, { kind: "export", manifestSha256: sha256Hex(await readFile(join(dir, "m1.json"))) }],
      // A sharded run's index.
      [JSON.stringify({ schema: "little-canary-ingest-index/v1", shards: [] }), { kind: "index" }],
    ];
    for (const [text, kind] of cases) {
      await writeFile(path, text);
      expect(await pairDocumentOf(path), text.slice(0, 60)).toEqual(kind);
    }
  });

  it("a sharded run's index named as --manifest or --export is refused under --overwrite, naming it", async () => {
    const index = JSON.stringify({ schema: "little-canary-ingest-index/v1", shard_count: 1, shards: [] });
    await writeFile(join(dir, "index.json"), index);
    for (const [manifest, exported, flag] of [
      ["index.json", "q.json", "--manifest"],
      ["q.json", "index.json", "--export"],
    ] as const) {
      const run = await ingest("in.jsonl", manifest, true, exported);
      expect(run.code, flag).toBe(3);
      expect(run.error).toContain(`refusing to replace ${flag} ${join(dir, "index.json")}: it is the index of a sharded run (little-canary-ingest-index/v1)`);
      expect(await readFile(join(dir, "index.json"), "utf8")).toBe(index);
    }
  });

  it("the library's removePreviousPair refuses before removing anything", async () => {
    expect((await ingest("in.jsonl", "m1.json")).code).toBe(0);
    const manifest = await readFile(join(dir, "m1.json"));
    expect(await exportBinding(join(dir, "e.json"))).toBe(sha256Hex(manifest));
    await writeFile(join(dir, "m2.json"), "{}");
    await expect(removePreviousPair({ manifestPath: join(dir, "m2.json"), exportPath: join(dir, "e.json") })).rejects.toThrow(
      "it is the export of another manifest",
    );
    expect(await readFile(join(dir, "m2.json"), "utf8")).toBe("{}");
    expect((await verify("m1.json")).code).toBe(0);
  });
});
