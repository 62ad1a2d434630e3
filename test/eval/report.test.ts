// The HTML report: self-contained, escaped, and drawn. The Chromium test renders the real page
// headlessly (Debian `chromium`) and reads the DOM back to check that the chart's bars exist.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { escapeHtml } from "../../src/eval/report.js";
import { runEval } from "../../src/eval/run.js";

const REPO = resolve(import.meta.dirname, "../..");
// A fixture corpus written for this suite: six categories, each holding one kind of case.
const PROMPTS = "fixtures/corpora/mixed.json";
const CHROMIUM = "/usr/bin/chromium";
const run = promisify(execFile);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-report-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & \u202eevil';

async function hostileReport(): Promise<string> {
  const corpus = join(dir, "h.json");
  await writeFile(
    corpus,
    JSON.stringify([
      { id: "<b>id</b>", prompt: HOSTILE, expected_safe: false, category: "<i>cat</i>" },
      { id: "ok", prompt: "What is the capital of France?", expected_safe: true, category: "plain" },
    ]),
  );
  const report = join(dir, "out", "r.html");
  await runEval({ corpus: [corpus], output: join(dir, "out", "r.jsonl"), report, cwd: dir });
  return report;
}

describe("HTML report", () => {
  test("escapeHtml neutralises markup, quotes and reordering characters", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe("&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#96;");
    expect(escapeHtml("a\u202eb")).toBe("a\u2039U+202E\u203ab");
  });

  test("the page is self-contained, forbids scripts and loads, and shows case text only escaped", async () => {
    const html = await readFile(await hostileReport(), "utf8");
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|<img|<link|@import|url\(|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
    expect(html).not.toContain("\u202e");
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain("&#60;i&#62;cat&#60;/i&#62;");
    expect(html).toContain('id="category-chart"');
  });

  const skipReason = existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent (install the Debian chromium package)`;
  if (skipReason) console.warn(`skipping the Chromium report test: ${skipReason}`);

  test.skipIf(Boolean(skipReason))(
    "headless Chromium renders the bar chart of blocked/passed/unscored per category",
    async () => {
      const report = join(dir, "r.html");
      await runEval({ corpus: [PROMPTS], output: join(dir, "r.jsonl"), report, cwd: REPO });
      const profile = await mkdtemp(join(tmpdir(), "lc-chromium-"));
      try {
        const flags = [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          `--user-data-dir=${profile}`,
        ];
        const { stdout: dom } = await run(CHROMIUM, [...flags, "--dump-dom", `file://${report}`], { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 });
        const bars = [...dom.matchAll(/<rect [^>]*data-series="(blocked|passed|unscored)"[^>]*width="([\d.]+)"/g)];
        // Six categories, one kind each: six rows, each starting at the bar origin.
        expect(dom.match(/data-kind="(?:attack|benign)" x="260\.00"/g) ?? []).toHaveLength(6);
        expect(bars.length).toBeGreaterThanOrEqual(6);
        expect(bars.every(([, , width]) => Number(width) > 0)).toBe(true);
        expect(bars.some(([, series]) => series === "blocked")).toBe(true);
        expect(bars.some(([, series]) => series === "passed")).toBe(true);
        expect(dom).toContain("little-canary eval report");
        const shot = join(dir, "r.png");
        await run(CHROMIUM, [...flags, "--window-size=1200,1400", `--screenshot=${shot}`, `file://${report}`], { timeout: 60_000 });
        const png = await readFile(shot);
        expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
        expect(png.length).toBeGreaterThan(10_000);
      } finally {
        await rm(profile, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
