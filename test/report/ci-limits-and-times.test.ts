// GitHub's annotation limit is per level (10 errors and 10 warnings of a step), so the cap is too;
// and a JUnit report carries the suite's start (`timestamp`) and duration (`time`), read from
// the reports' clock (a fixed one here: no wall-clock in the assertion).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GithubReport } from "../../src/report/github.js";
import type { ReportItem } from "../../src/report/report-item.js";
import { REPORT_RULES, type ReportRule } from "../../src/report/rules.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { tempDir } from "../support/publish-fixtures.js";
import { screenWithReportsIn } from "./screen-fixture.js";

const item = (index: number, rule: ReportRule): ReportItem => ({
  index,
  line: index + 1,
  rule,
  outcome: rule.level === "error" ? "block" : "flag",
  sha256: "a".repeat(64),
  id: null,
  matches: [],
});

describe("GitHub annotations", () => {
  it("are capped at 10 per level: 12 flags after 12 blocks still show 10 warnings, and one line counts the other 4", () => {
    const lines: string[] = [];
    const report = new GithubReport("in.jsonl", (line) => void lines.push(line), ["the job summary", "the SARIF report r.sarif"]);
    for (let i = 0; i < 12; i++) report.add(item(i, REPORT_RULES.blockCanary));
    for (let i = 12; i < 24; i++) report.add(item(i, REPORT_RULES.flagCanary));
    report.finish();
    expect(lines.filter((l) => l.startsWith("::error ")).length).toBe(10);
    expect(lines.filter((l) => l.startsWith("::warning ")).length).toBe(10);
    // The first of each level, in input order.
    expect(lines.filter((l) => l.startsWith("::warning "))[0]).toContain("line=13,");
    expect(lines.at(-1)).toBe(
      "little-canary: 4 more results were not annotated (GitHub shows at most 10 errors and 10 warnings per step; detections are annotated first); see the job summary or the SARIF report r.sarif\n",
    );
  });

  it("detections are annotated and listed before coverage failures: 12 unexercised items ahead of 2 blocks still show both blocks, in input order", () => {
    const lines: string[] = [];
    const report = new GithubReport("in.jsonl", (line) => void lines.push(line));
    for (let i = 0; i < 12; i++) report.add(item(i, REPORT_RULES.unexercised));
    report.add(item(12, REPORT_RULES.blockStructural));
    for (let i = 13; i < 70; i++) report.add(item(i, REPORT_RULES.degraded));
    report.add(item(70, REPORT_RULES.blockCanary));
    report.finish();
    const errors = lines.filter((l) => l.startsWith("::error "));
    expect(errors.map((l) => /line=(\d+),/.exec(l)?.[1])).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "13", "71"]);
    // Nothing else says where the rest are: no report file and no job summary in this run.
    expect(lines.at(-1)).toBe(
      "little-canary: 61 more results were not annotated (GitHub shows at most 10 errors and 10 warnings per step; detections are annotated first)\n",
    );
    const summary = report.summary("screen in.jsonl", { block: 2 });
    const rows = summary.split("\n").filter((l) => /^\| \d+ \|/.test(l));
    expect(rows).toHaveLength(50);
    expect(rows.some((l) => l.startsWith("| 13 |"))).toBe(true);
    expect(rows.some((l) => l.startsWith("| 71 |"))).toBe(true);
    expect(summary).toContain("21 more not listed (detections are listed first).");
  });

  it("a run with fewer than 10 of each level annotates them all and prints no count line", () => {
    const lines: string[] = [];
    const report = new GithubReport("in.jsonl", (line) => void lines.push(line));
    for (let i = 0; i < 10; i++) report.add(item(i, REPORT_RULES.degraded));
    for (let i = 10; i < 13; i++) report.add(item(i, REPORT_RULES.flagCanary));
    report.finish();
    expect(lines.length).toBe(13);
    expect(lines.some((l) => l.startsWith("little-canary:"))).toBe(false);
  });
});

describe("JUnit time and timestamp", () => {
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

  it("the suite's timestamp is when the reports opened (UTC, JUnit's form) and time the seconds until they were written", async () => {
    const times = [new Date("2026-12-02T10:00:00.250Z"), new Date("2026-12-02T10:01:03.000Z")];
    let reads = 0;
    await screenWithReportsIn(dir, ollama.url, [JSON.stringify("The quarterly report.")], {
      junit: "out.xml",
      clock: () => times[Math.min(reads++, 1)] as Date,
    });
    const xml = await readFile(join(dir, "out.xml"), "utf8");
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml) as {
      testsuites: { time: string; testsuite: { time: string; timestamp: string; tests: string } };
    };
    expect(parsed.testsuites.time).toBe("62.750");
    expect(parsed.testsuites.testsuite).toMatchObject({ time: "62.750", timestamp: "2026-12-02T10:00:00", tests: "1" });
    // The clock was read twice: once when the reports opened, once when they were written.
    expect(reads).toBe(2);
  });
});
