// `ingest --shard K/N` on its own: what a shard reads, records and refuses. The canary is off
// (--no-canary) where only the reading matters.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
import { IngestManifestSchema } from "../../src/documents/schemas.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

let dir: string;
let canary: OllamaStandIn;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lc-shard-ingest-"));
  canary = await startOllamaStandIn({ reply: "Here is a short summary of the document.", contextLength: 32768 });
});
afterEach(async () => {
  await canary.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = (i: number, id = `r${i}`) => JSON.stringify({ id, text: `record ${i}` });
const ingest = (args: string[], stdin?: string) =>
  runCli(["ingest", "in.jsonl", "--manifest-version", "1", "--manifest", "m.json", "--export", "e.json", "--no-canary", ...args], {
    cwd: dir,
    ...(stdin === undefined ? {} : { stdin }),
  });
/** With the stand-in canary, so the pair verifies. */
const checked = (args: string[]) =>
  runCli(
    ["ingest", "in.jsonl", "--manifest-version", "1", "--manifest", "m.json", "--export", "e.json", "--ollama-url", canary.url, "--timeout", "10", ...args],
    { cwd: dir },
  );
const verifyPair = () => runCli(["verify", "--manifest", "m.json", "--export", "e.json"], { cwd: dir });
const manifest = () => JSON.parse(readFileSync(join(dir, "m.json"), "utf8"));

describe("ingest --shard", () => {
  it("the manifest records the shard, its range's SHA-256 and the whole input's SHA-256; an unsharded run records no shard", async () => {
    const lines = ["", record(1), record(2), "  ", record(4), record(5), record(6)];
    const text = `${lines.join("\n")}\n`;
    writeFileSync(join(dir, "in.jsonl"), text);
    const run = await checked(["--shard", "1/2"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[6]).toBe(`shard 1/2: lines 4-7 of 7 input lines (range sha256=${sha256Hex(`${lines.slice(3).join("\n")}\n`)})`);
    const { run: head, records } = manifest();
    // 7 lines: shard 0 is lines 1-3, shard 1 lines 4-7 (one blank, three records).
    expect(head.shard).toEqual({ k: 1, n: 2, first_line: 4, lines: 4, input_lines: 7, range_sha256: sha256Hex(`${lines.slice(3).join("\n")}\n`) });
    expect(head.input_sha256).toBe(sha256Hex(text));
    expect(records.map((r: { id_sha256: string; index: number }) => [r.index, r.id_sha256])).toEqual([
      [0, sha256Hex("r4")],
      [1, sha256Hex("r5")],
      [2, sha256Hex("r6")],
    ]);
    expect((await verifyPair()).code).toBe(0);
    expect((await checked(["--overwrite"])).code).toBe(0);
    expect(manifest().run.shard).toBeUndefined();
  });

  it("a shard reads only its own lines strictly; a refusal names the input's own line number", async () => {
    const lines = [record(1), record(2), '{"text":"a","text":"b"}', record(4), record(5), record(6)];
    writeFileSync(join(dir, "in.jsonl"), `${lines.join("\n")}\n`);
    // Shard 0 of 2 is lines 1-3: the duplicate key on line 3 refuses it, named by that line.
    const refused = await ingest(["--shard", "0/2"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/error: .*line 3: duplicate key/);
    expect(refused.stderr).toContain("nothing written");
    // Shard 1 of 2 is lines 4-6 and never parses line 3.
    const other = await ingest(["--shard", "1/2"]);
    expect(other.code, other.stderr).toBe(2);
    expect(manifest().run.records_total).toBe(3);
  });

  it("standard input and an input without lines are refused, naming --shard", async () => {
    const piped = await runCli(["ingest", "-", "--manifest", "m.json", "--no-canary", "--shard", "0/2"], { cwd: dir, stdin: `${record(1)}\n` });
    expect(piped.code).toBe(3);
    expect(piped.stderr).toBe("error: --shard needs an input file: standard input cannot be read twice (save it to a file first)\n");
    writeFileSync(join(dir, "in.jsonl"), "");
    const empty = await ingest(["--shard", "0/2"]);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain("error: no lines in input, nothing to shard; nothing written\n");
    for (const bad of ["2/2", "x"]) {
      const run = await ingest(["--shard", bad]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain("--shard");
    }
  });

  it.skipIf(process.platform === "win32")(
    "a named pipe is refused before it is opened, naming --shard and the pipe; a directory input is refused and the old pair kept",
    async () => {
      const fifo = join(dir, "in.fifo");
      execFileSync("mkfifo", [fifo]);
      // Nothing ever writes to the pipe: a run that opened it would wait forever, so the refusal must come first.
      const piped = await runCli(["ingest", "in.fifo", "--manifest", "m.json", "--no-canary", "--shard", "0/2"], { cwd: dir });
      expect(piped.code).toBe(3);
      expect(piped.stderr).toBe(
        'error: --shard needs an input file that can be read twice: "in.fifo" is a pipe (a named pipe or <(command)); save it to a file first\n',
      );
      writeFileSync(join(dir, "in.jsonl"), `${record(1)}\n`);
      expect((await ingest([])).code).toBe(2);
      const before = readFileSync(join(dir, "m.json"), "utf8");
      mkdirSync(join(dir, "folder"));
      const folder = await runCli(["ingest", "folder", "--manifest", "m.json", "--export", "e.json", "--no-canary", "--overwrite"], { cwd: dir });
      expect(folder.code).toBe(3);
      expect(folder.stderr).toContain('error: the input "folder" is a directory; give a JSONL file (or - for standard input)\n');
      expect(readFileSync(join(dir, "m.json"), "utf8")).toBe(before);
    },
  );

  it("an empty shard (more shards than lines, or blank lines only) publishes an empty pair that verifies", async () => {
    writeFileSync(join(dir, "in.jsonl"), `${record(1)}\n\n${record(3)}\n`);
    const blank = await checked(["--shard", "1/3"]);
    expect(blank.code, blank.stderr).toBe(0);
    expect(manifest().run).toMatchObject({ records_total: 0, shard: { k: 1, n: 3, first_line: 2, lines: 1 } });
    expect((await verifyPair()).code).toBe(0);
    const none = await checked(["--shard", "0/5", "--overwrite"]);
    expect(none.code, none.stderr).toBe(0);
    expect(manifest().run.shard).toMatchObject({ first_line: 1, lines: 0 });
    expect((await verifyPair()).code).toBe(0);
  });

  it("ids and duplicates are checked within the shard", async () => {
    writeFileSync(join(dir, "in.jsonl"), `${[record(1, "a"), record(2, "b"), record(3, "a"), record(4, "b"), record(5, "b")].join("\n")}\n`);
    await ingest(["--shard", "0/2"]);
    // Lines 1-2 (a, b): no repeat inside the shard, though both ids come again later.
    expect(manifest().counts.duplicate_ids).toBe(0);
    await ingest(["--shard", "1/2", "--overwrite", "--unique-ids"]);
    // Lines 3-5 (a, b, b): only the second b repeats an id of this shard.
    expect(manifest().counts.duplicate_ids).toBe(1);
    expect(manifest().records.map((r: { hold_reasons: string[] }) => r.hold_reasons.includes("malformed"))).toEqual([false, false, true]);
  });

  it("verify refuses a manifest whose recorded shard is not the range its numbers define", async () => {
    writeFileSync(join(dir, "in.jsonl"), `${[1, 2, 3, 4, 5, 6].map((i) => record(i)).join("\n")}\n`);
    expect((await checked(["--shard", "1/3"])).code).toBe(0);
    const original = manifest();
    const exported = JSON.parse(readFileSync(join(dir, "e.json"), "utf8"));
    /** The manifest changed and rewritten canonically, its export bound to the new bytes. */
    const rewrite = async (change: (m: Record<string, any>) => void) => {
      const m = structuredClone(original);
      change(m);
      const text = canonicalJson(IngestManifestSchema, m);
      writeFileSync(join(dir, "m.json"), text);
      writeFileSync(join(dir, "e.json"), canonicalJsonUnchecked({ ...exported, manifest_sha256: sha256Hex(text) }));
      return verifyPair();
    };
    const longer = await rewrite((m) => (m.run.shard.lines = 3));
    expect(longer.code).toBe(1);
    expect(longer.stdout).toContain("[shard_invalid] manifest run.shard: shard 1/3 of 6 lines must cover lines 3-4, not lines 3-5");
    const moved = await rewrite((m) => (m.run.shard.k = 2));
    expect(moved.stdout).toContain("[shard_invalid] manifest run.shard: shard 2/3 of 6 lines must cover lines 5-6, not lines 3-4");
    const unhashed = await rewrite((m) => (m.run.input_sha256 = null));
    expect(unhashed.stdout).toContain("[shard_invalid] manifest run.shard: a sharded run must record the input's sha256");
    const fewerLines = await rewrite((m) => {
      m.run.shard = { ...m.run.shard, k: 0, n: 6, first_line: 1, lines: 1 };
    });
    expect(fewerLines.stdout).toContain("[shard_invalid] manifest run.shard: 2 records cannot come from line 1");
    expect((await rewrite(() => {})).code).toBe(0);
  });
});
