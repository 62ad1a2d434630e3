// The benchmark corpus reader (bench/_corpora.ts): `--corpus` with several files, the
// development-set JSONL format, and errors that name the file and line. Temp files only, so the
// suite needs no corpora outside the repository.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { corpusPathsFromArgs, loadBenchCorpora } from "../../bench/_corpora.js";
import { CorpusError } from "../../src/eval/corpus.js";

const dir = mkdtempSync(path.join(tmpdir(), "lc-bench-corpora-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Uint8Array): string {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
}

const line = (o: unknown): string => `${JSON.stringify(o)}\n`;

describe("--corpus takes one or more files", () => {
  it("every argument after --corpus up to the next flag is a file, and the flag may repeat", () => {
    const a = file("a.jsonl", line({ id: "a", text: "x", attack: true }));
    const b = file("b.json", "[]");
    const c = file("c.jsonl", line({ id: "c", text: "y", attack: false }));
    expect(corpusPathsFromArgs(["--corpus", a, b, "--write-doc", "--corpus", c])).toEqual({ paths: [a, b, c] });
    expect(corpusPathsFromArgs([`--corpus=${a}`])).toEqual({ paths: [a] });
  });

  it("a flag without a file, no flag, or a missing file is an error naming the flag", () => {
    expect(corpusPathsFromArgs(["--corpus", "--write-doc"])).toEqual({ error: "--corpus needs at least one file path" });
    expect("error" in corpusPathsFromArgs([])).toBe(true);
    const r = corpusPathsFromArgs(["--corpus", path.join(dir, "nope.jsonl")]);
    expect("error" in r && r.error).toMatch(/--corpus .*nope\.jsonl: file not found/);
  });
});

describe("development-set JSONL", () => {
  it("reads id/text/attack/category per line into attacks and benign cases of their own file", async () => {
    const dev = file("dev.jsonl", line({ id: "d1", text: "t1", attack: true, category: "xss" }) + line({ id: "d2", text: "t2", attack: false }));
    const json = file("cases.json", JSON.stringify([{ id: "d1", prompt: "p", expected_safe: true, category: "safe" }]));
    const loaded = await loadBenchCorpora([dev, json], { cwd: dir });
    expect(loaded.files.map((f) => f.cases)).toEqual([2, 1]);
    // The same id in two files is fine: sets are never pooled.
    expect(loaded.cases.map((c) => [c.id, c.kind, c.category, c.corpusIndex])).toEqual([
      ["d1", "attack", "xss", 0],
      ["d2", "benign", "uncategorized", 0],
      ["d1", "benign", "safe", 1],
    ]);
    expect(loaded.cases[0]?.prompt).toBe("t1");
  });

  it("CRLF line ends are accepted", async () => {
    const p = file("crlf.jsonl", `${JSON.stringify({ id: "a", text: "x", attack: false })}\r\n`);
    expect((await loadBenchCorpora([p], { cwd: dir })).cases).toHaveLength(1);
  });

  const bad: Array<[string, string | Uint8Array, RegExp]> = [
    ["malformed JSON", `${line({ id: "a", text: "x", attack: true })}{"id":"b",\n`, /bad\.jsonl\), line 2: /],
    ["a missing label", line({ id: "a", text: "x" }), /line 1: field 'attack' must be true or false/],
    ["a string label", line({ id: "a", text: "x", attack: "yes" }), /line 1: field 'attack'/],
    ["a non-string text", line({ id: "a", text: 5, attack: true }), /line 1: field 'text'/],
    ["an unknown field", line({ id: "a", text: "x", attack: true, label: 1 }), /line 1: unknown field 'label'/],
    ["a repeated id", line({ id: "a", text: "x", attack: true }) + line({ id: "a", text: "y", attack: true }), /line 2: id repeats the id of line 1/],
    ["a blank line", `${line({ id: "a", text: "x", attack: true })}\n${line({ id: "b", text: "x", attack: true })}`, /line 2: blank line/],
    ["a duplicate key", '{"id":"a","id":"b","text":"x","attack":true}\n', /line 1: /],
    ["a BOM", `\ufeff${line({ id: "a", text: "x", attack: true })}`, /byte order mark/],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]), /not valid UTF-8/],
    ["an empty file", "", /holds no cases/],
    ["an array line", "[1]\n", /line 1: must be a JSON object/],
  ];
  it.each(bad)("%s is refused with the file and line named, never the text", async (_name, content, message) => {
    const p = file("bad.jsonl", content);
    const error = await loadBenchCorpora([p], { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorpusError);
    expect((error as Error).message).toMatch(/^corpus 1 \(.*bad\.jsonl\)/);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('"x"');
  });

  it("a malformed JSON corpus after a good one is named by its own position", async () => {
    const good = file("good.jsonl", line({ id: "a", text: "x", attack: true }));
    const broken = file("broken.json", "{not json");
    await expect(loadBenchCorpora([good, broken], { cwd: dir })).rejects.toThrow(/^corpus 2 \(.*broken\.json\)/);
  });
});

describe("per-set figures carry a Wilson interval over their own population", () => {
  it("k/n with the percentage and the 95% Wilson interval; an absent population is '-'", async () => {
    const { blockedFigure } = await import("../../bench/_corpora.js");
    expect(blockedFigure(0, 20)).toBe("0/20 (0.0% [0.0–16.1])");
    expect(blockedFigure(25, 160)).toBe("25/160 (15.6% [10.8–22.0])");
    expect(blockedFigure(0, 0)).toBe("-");
  });
});
