import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { CorpusError, loadCorpora, loadIdsFile, selectCases } from "../../src/eval/corpus.js";

const REPO = resolve(import.meta.dirname, "../..");
// Fixture corpora written for this suite: 12 attacks and 5 benign neighbours, then 8 benign cases.
const PROMPTS = resolve(REPO, "fixtures/corpora/mixed.json");
const FP = resolve(REPO, "fixtures/corpora/benign-neighbours.json");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-corpus-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("loading corpora", () => {
  test("corpora load as they are, in order: 12 attacks and 5 benign, then 8 benign", async () => {
    const loaded = await loadCorpora([PROMPTS, FP], { cwd: REPO });
    expect(loaded.files.map((f) => f.cases)).toEqual([17, 8]);
    expect(loaded.files[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const first = loaded.cases.slice(0, 17);
    expect(first.filter((c) => c.kind === "attack")).toHaveLength(12);
    expect(first.filter((c) => c.kind === "benign")).toHaveLength(5);
    expect(loaded.cases.slice(17).every((c) => c.kind === "benign" && c.corpusIndex === 1)).toBe(true);
  });

  test("an object with a cases array is a corpus; defaults fill category, stealth and failure mode", async () => {
    const path = await file("c.json", JSON.stringify({ cases: [{ id: "a", prompt: "hi", expected_safe: true }] }));
    const loaded = await loadCorpora([path], { cwd: dir });
    expect(loaded.cases[0]).toMatchObject({ id: "a", category: "uncategorized", stealth: 3, failureMode: "", adjudication: null });
  });

  test("a duplicate key anywhere in a corpus refuses it", async () => {
    const path = await file("d.json", '[{"id":"a","prompt":"x","prompt":"y","expected_safe":true}]');
    await expect(loadCorpora([path], { cwd: dir })).rejects.toThrow(/duplicate key/);
  });

  test("a byte order mark, invalid UTF-8 and an escaped lone surrogate are refused", async () => {
    const bom = await file("bom.json", new Uint8Array([0xef, 0xbb, 0xbf, 0x5b, 0x5d]));
    await expect(loadCorpora([bom], { cwd: dir })).rejects.toThrow(/byte order mark/);
    const bad = await file("bad.json", new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]));
    await expect(loadCorpora([bad], { cwd: dir })).rejects.toThrow(/UTF-8/);
    const lone = await file("lone.json", '[{"id":"a","prompt":"\\ud800","expected_safe":false}]');
    await expect(loadCorpora([lone], { cwd: dir })).rejects.toThrow(/lone surrogate/);
  });

  test("ids must be unique across all corpora, and the error names ids, never prompts", async () => {
    const a = await file("a.json", JSON.stringify([{ id: "dup", prompt: "SECRET-PROMPT", expected_safe: false }]));
    const b = await file("b.json", JSON.stringify([{ id: "dup", prompt: "other", expected_safe: true }]));
    const error = await loadCorpora([a, b], { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorpusError);
    expect((error as Error).message).toContain('"dup"');
    expect((error as Error).message).not.toContain("SECRET-PROMPT");
  });

  test("a case with a wrong field type is refused with the field name and the case index", async () => {
    const path = await file("t.json", JSON.stringify([{ id: "a", prompt: "x", expected_safe: "no" }]));
    await expect(loadCorpora([path], { cwd: dir })).rejects.toThrow(/case 0: field 'expected_safe'/);
  });

  test("a field of the wrong type names the case, the field, the type expected and the type found, never the value", async () => {
    const cases: Array<[unknown, string]> = [
      [[{ id: "a", prompt: 5, expected_safe: true }], "case 0: field 'prompt' must be a string, not a number"],
      [
        {
          cases: [
            { id: "a", prompt: "x", expected_safe: true },
            { id: "b", prompt: "x", expected_safe: 3 },
          ],
        },
        "case 1: field 'expected_safe' must be true or false, not a number",
      ],
      [[{ id: "a", prompt: true, expected_safe: true }], "case 0: field 'prompt' must be a string, not a boolean"],
      [[{ id: ["SECRET"], prompt: "x", expected_safe: true }], "case 0: field 'id' must be a string, not an array"],
      [[{ id: "a", prompt: "x", expected_safe: null }], "case 0: field 'expected_safe' must be true or false, not null"],
      [[{ id: "a", expected_safe: true }], "case 0: field 'prompt' is missing (it must be a string)"],
      [["SECRET"], "case 0: must be an object, not a string"],
      [
        [{ id: "a", prompt: "x", expected_safe: true, source_case_id: { s: "SECRET" } }],
        "case 0: field 'source_case_id' must be a string, a number, true or false, or null, not an object",
      ],
      [[{ id: "a", prompt: "x", expected_safe: true, adjudication: "SECRET" }], `case 0: field 'adjudication' must be one of "positive", "benign_control"`],
      [[{ id: "", prompt: "x", expected_safe: true }], "case 0: field 'id' must not be empty"],
    ];
    for (const [document, message] of cases) {
      const path = await file("w.json", JSON.stringify(document));
      const error = await loadCorpora([path], { cwd: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorpusError);
      expect((error as Error).message).toBe(`corpus 1 (${path}), ${message}`);
      expect((error as Error).message).not.toContain("SECRET");
    }
  });

  test("JSON Lines with a field of the wrong type is refused as JSON Lines, naming the line where the second value starts", async () => {
    const path = await file("w.jsonl", '{"id":"a","prompt":5,"expected_safe":true}\n{"id":"b","prompt":"SECRET","expected_safe":3}\n');
    const error = await loadCorpora([path], { cwd: dir }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("it looks like JSON Lines (a second JSON value starts on line 2), which eval does not read");
    expect((error as Error).message).not.toContain("SECRET");
  });

  test("a stealth level outside 1 to 5 refuses the corpus, naming the case by index and id, never its text", async () => {
    for (const stealth of [0, 6, 9, -1, 2.5]) {
      const path = await file(
        "s.json",
        JSON.stringify([
          { id: "ok", prompt: "x", expected_safe: true, stealth: 5 },
          { id: "s1", prompt: "SECRET-PROMPT", expected_safe: false, stealth },
        ]),
      );
      const error = await loadCorpora([path], { cwd: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorpusError);
      expect((error as CorpusError).code).toBe("input_refused");
      expect((error as Error).message).toContain(`case 1 (id "s1"): field 'stealth' must be a whole number from 1 to 5, not ${stealth}`);
      expect((error as Error).message).not.toContain("SECRET-PROMPT");
    }
    const edges = await file("e.json", JSON.stringify([1, 5].map((stealth) => ({ id: `s${stealth}`, prompt: "x", expected_safe: false, stealth }))));
    expect((await loadCorpora([edges], { cwd: dir })).cases.map((c) => c.stealth)).toEqual([1, 5]);
  });

  test("a JSON Lines corpus is refused saying a corpus is one JSON document and naming the line where the second value starts, never the text", async () => {
    const lines = ['{"id":"a","prompt":"SECRET-ONE","expected_safe":false}', "", '{"id":"b","prompt":"SECRET-TWO","expected_safe":true}', ""];
    const path = await file("c.jsonl", lines.join("\n"));
    const error = await loadCorpora([path], { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorpusError);
    const message = (error as Error).message;
    expect(message).toContain("c.jsonl");
    expect(message).toContain("a corpus must be one JSON document: an array of cases or an object with a 'cases' array");
    expect(message).toContain("it looks like JSON Lines (a second JSON value starts on line 3)");
    expect(message).not.toMatch(/SECRET|"id"/);
  });

  test("malformed JSON that is not JSON Lines says what a corpus must hold, and no JSON Lines hint", async () => {
    const path = await file("m.json", '[{"id":"a","prompt":"SECRET","expected_safe":false},]');
    const error = await loadCorpora([path], { cwd: dir }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("malformed JSON");
    expect((error as Error).message).toContain("a corpus must be one JSON document");
    expect((error as Error).message).not.toContain("JSON Lines");
    expect((error as Error).message).not.toContain("SECRET");
  });

  test("a paired-probe case whose adjudication contradicts expected_safe is refused", async () => {
    const path = await file("p.json", JSON.stringify([{ id: "a", prompt: "x", expected_safe: true, adjudication: "positive" }]));
    await expect(loadCorpora([path], { cwd: dir })).rejects.toThrow(/adjudication 'positive'/);
  });
});

describe("selecting cases", () => {
  test("an ids file runs exactly those cases in its order, across corpora (a benign case of the second corpus before an attack of the first)", async () => {
    const loaded = await loadCorpora([PROMPTS, FP], { cwd: REPO });
    const ids = await loadIdsFile(await file("ids.json", '["hn-07","ov-01"]'), { cwd: dir });
    expect(selectCases(loaded, ids).map((c) => c.id)).toEqual(["hn-07", "ov-01"]);
  });

  test("an ids file in JSON Lines is refused as not one JSON document, with the JSON Lines hint", async () => {
    const ids = await file("ids.jsonl", '"a"\n"b"\n');
    const error = await loadIdsFile(ids, { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorpusError);
    expect((error as Error).message).toContain("an IDs file must be one JSON document: a list of case ID strings");
    expect((error as Error).message).toContain("a second JSON value starts on line 2");
  });

  test("ids file errors: not a list of strings, duplicates, unknown ids", async () => {
    const loaded = await loadCorpora([PROMPTS], { cwd: REPO });
    await expect(loadIdsFile(await file("n.json", "[1]"), { cwd: dir })).rejects.toThrow("IDs file must be a JSON list of case ID strings");
    await expect(loadIdsFile(await file("o.json", '{"ids":[]}'), { cwd: dir })).rejects.toThrow("IDs file must be a JSON list of case ID strings");
    await expect(loadIdsFile(await file("d.json", '["ov-01","ov-01"]'), { cwd: dir })).rejects.toThrow(
      /^IDs file contains duplicates: "ov-01" \(--ids-file .*d\.json\)$/,
    );
    const unknown = await loadIdsFile(await file("u.json", '["ov-01","nope-1","nope-2"]'), { cwd: dir });
    expect(() => selectCases(loaded, unknown)).toThrow(/^Unknown case IDs: "nope-1", "nope-2": no corpus given holds them \(--ids-file .*u\.json\)$/);
    const none = await loadIdsFile(await file("e.json", "[]"), { cwd: dir });
    expect(() => selectCases(loaded, none)).toThrow(/^no cases selected: the IDs file lists none \(--ids-file .*e\.json\)$/);
  });

  test("ids repeated across corpora are refused naming the corpora they are in", async () => {
    const a = await file(
      "a.json",
      JSON.stringify([
        { id: "x-1", prompt: "p", expected_safe: true },
        { id: "x-2", prompt: "q", expected_safe: true },
      ]),
    );
    const b = await file("b.json", JSON.stringify([{ id: "y-1", prompt: "p", expected_safe: true }]));
    const c = await file("c.json", JSON.stringify([{ id: "x-2", prompt: "q", expected_safe: true }]));
    await expect(loadCorpora([a, b, c], { cwd: dir })).rejects.toThrow(
      /^Corpora contain duplicate IDs: "x-2", in corpus 1 \(.*a\.json\) and corpus 3 \(.*c\.json\)$/,
    );
  });

  test("a paired probe cannot be mixed with ordinary cases", async () => {
    const paired = await file(
      "p.json",
      JSON.stringify([
        { id: "jb-1", prompt: "x", expected_safe: false, adjudication: "positive", paired_case_id: "jb-1c" },
        { id: "jb-1c", prompt: "y", expected_safe: true, adjudication: "benign_control", paired_case_id: "jb-1" },
      ]),
    );
    const loaded = await loadCorpora([PROMPTS, paired], { cwd: REPO });
    expect(() => selectCases(loaded, null)).toThrow(/paired probe/);
    const alone = await loadCorpora([paired], { cwd: dir });
    expect(selectCases(alone, null)).toHaveLength(2);
  });
});
