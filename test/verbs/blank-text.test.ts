// A text of whitespace alone (every code point Unicode White_Space) has nothing to screen: it is
// refused like an empty text everywhere a text enters (checkText and `check`, `/check`, `screen`
// items, `ingest` records, held as malformed), and no canary call is spent on it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { checkText } from "../../src/verbs/check.js";
import { isBlankText } from "../../src/core/codepoints.js";
import { UsageError } from "../../src/core/errors.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { pipelineFor, postJson, startService } from "../support/server-harness.js";

/** Space, tab, CR LF, NBSP, ideographic space, line separator, NEL, em space. */
const BLANK = " \t\r\n\u00a0\u3000\u2028\u0085\u2003";

let ollama: OllamaStandIn;
let dir: string;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "Here is a short summary of the document.", contextLength: 32768 });
  dir = await mkdtemp(join(tmpdir(), "lc-blank-"));
});
afterEach(async () => {
  await ollama.close();
});

describe("the blank-text rule", () => {
  it("a text is blank when every code point is Unicode White_Space; format characters and lone surrogates are text", () => {
    expect(isBlankText("")).toBe(true);
    expect(isBlankText(BLANK)).toBe(true);
    expect(isBlankText(`${BLANK}a`)).toBe(false);
    expect(isBlankText("\u200b")).toBe(false);
    expect(isBlankText("\ufeff")).toBe(false);
    expect(isBlankText("\ud800")).toBe(false);
  });
});

describe("a whitespace-only text is refused like an empty one", () => {
  it("checkText refuses it before the pipeline is built", async () => {
    let built = 0;
    const pipeline = () => {
      built++;
      return new SecurityPipeline({ ollamaUrl: ollama.url });
    };
    await expect(checkText({ input: BLANK, pipeline })).rejects.toThrow(UsageError);
    await expect(checkText({ input: Readable.from([Buffer.from(`${BLANK}\n`)]), pipeline })).rejects.toThrow(/only whitespace/);
    expect(built).toBe(0);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("check exits 2 with a message and spends no canary call", async () => {
    const run = await runCli(["check", "--ollama-url", ollama.url], { stdin: "   \t  \n" });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/only whitespace/);
    const given = await runCli(["check", "--ollama-url", ollama.url, "--text", BLANK]);
    expect(given.code).toBe(2);
    expect(ollama.requests.filter((r) => r.path === "/api/chat")).toHaveLength(0);
  });

  it("/check answers 400 and the pipeline is not called", async () => {
    const service = await startService(pipelineFor(ollama.url));
    try {
      const response = await postJson(service.url, { text: BLANK });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "text must not be only whitespace" });
    } finally {
      await service.close();
    }
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("screen refuses a batch with a whitespace-only item (exit 2), before any check", async () => {
    const path = join(dir, "items.jsonl");
    await writeFile(path, `${JSON.stringify({ text: "A normal question." })}\n${JSON.stringify({ text: BLANK })}\n`);
    const run = await runCli(["screen", path, "--ollama-url", ollama.url, "--timeout", "5"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/'text' must not be only whitespace/);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("ingest holds a whitespace-only record as malformed, as it holds an empty one, and sends it to no canary", async () => {
    const path = join(dir, "records.jsonl");
    const records = [
      { id: "a", text: "Returns are accepted within 30 days of delivery." },
      { id: "b", text: BLANK },
      { id: "c", text: "" },
    ];
    await writeFile(path, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const manifestPath = join(dir, "manifest.json");
    const run = await runCli(
      [
        "ingest",
        path,
        "--manifest-version",
        "1",
        "--manifest",
        manifestPath,
        "--export",
        join(dir, "export.json"),
        "--ollama-url",
        ollama.url,
        "--timeout",
        "5",
      ],
      {
        cwd: dir,
      },
    );
    expect(run.code).not.toBe(0);
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { records: Array<{ hold_reasons: string[]; admission: string }> };
    expect(manifest.records.map((r) => [r.admission, r.hold_reasons])).toEqual([
      ["admitted", []],
      ["held", ["malformed"]],
      ["held", ["malformed"]],
    ]);
    const screened = ollama
      .chatRequests()
      .map((r) => (r.body as { messages: Array<{ content: string }> }).messages[1]?.content ?? "")
      .filter((content) => content === BLANK);
    expect(screened).toEqual([]);
  });
});
