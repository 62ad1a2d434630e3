// One screen run with CI reports, as the report tests need it: the input written into a temp
// directory, a real pipeline against a loopback Ollama stand-in, the batch document discarded.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { CiReportOptions } from "../../src/report/ci-reports.js";
import { screenWithReports, type ScreenWithReportsOptions } from "../../src/report/screen-reports.js";

/** Writes `lines` to `dir`/in.jsonl and screens it there with `reports` (and any other screen option). */
export async function screenWithReportsIn(
  dir: string,
  ollamaUrl: string,
  lines: readonly string[],
  reports: CiReportOptions,
  extra: Partial<ScreenWithReportsOptions> = {},
): Promise<void> {
  await writeFile(join(dir, "in.jsonl"), `${lines.join("\n")}\n`);
  await screenWithReports({
    input: "in.jsonl",
    cwd: dir,
    scratchDir: dir,
    output: async () => {},
    pipeline: new SecurityPipeline({ mode: "full", canaryModel: "qwen2.5:1.5b", ollamaUrl, canaryTimeout: 60 }),
    reports,
    ...extra,
  });
}
