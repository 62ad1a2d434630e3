// The one warning line a run earns for canary replies it could not use names the most common
// reason, with that reason's fix, and counts every reason when there were several: five records
// held for three reasons are never reported as five held for the first reason seen.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CALIBRATION_PROBE_TEXT } from "../../src/canary/run-context.js";
import { reasonBreakdown, ReasonTally } from "../../src/pipeline/reason-tally.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { tempDir } from "../support/publish-fixtures.js";

describe("ReasonTally", () => {
  it("lists reasons most first, ties in the order first seen, and a breakdown only for several", () => {
    const tally = new ReasonTally();
    expect(tally.counts()).toEqual([]);
    for (const reason of ["output_limit", "http_error", "empty_response", "http_error", "empty_response", "http_error"]) tally.add(reason);
    expect(tally.counts()).toEqual([
      ["http_error", 3],
      ["empty_response", 2],
      ["output_limit", 1],
    ]);
    expect(reasonBreakdown(tally.counts())).toBe(" (http_error 3, empty_response 2, output_limit 1)");
    const one = new ReasonTally();
    one.add("timeout");
    one.add("timeout");
    expect(reasonBreakdown(one.counts())).toBe("");
  });
});

describe("a run whose canary replies failed for several reasons", () => {
  let ollama: OllamaStandIn;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ollama = await startOllamaStandIn({ reply: "A short summary of the text." });
    // The first item's reply is cut off, the next is empty, the last three get HTTP 500.
    ollama.setReply((request) => {
      const body = JSON.stringify(request.body);
      if (body.includes(CALIBRATION_PROBE_TEXT)) return { content: "A short summary of the text." };
      if (body.includes("Cut reply")) return { fault: "length", content: "A short" };
      if (body.includes("Empty reply")) return { fault: "empty" };
      if (body.includes("Server error")) return { fault: "status", status: 500 };
      if (body.includes("Dropped call")) return { fault: "drop" };
      return { content: "A short summary of the text." };
    });
    ({ dir, cleanup } = await tempDir());
    const texts = ["Cut reply for this note.", "Empty reply for this note.", "Server error one.", "Server error two.", "Server error three.", "A plain note."];
    await writeFile(join(dir, "in.jsonl"), `${texts.map((text) => JSON.stringify({ text })).join("\n")}\n`);
  });
  afterEach(async () => {
    await ollama.close();
    await cleanup();
  });
  const canary = () => ["--ollama-url", ollama.url, "--canary-model", "qwen2.5:1.5b", "--max-canary-failures", "0", "--concurrency", "1"];

  it("screen names the most common reason and counts each", async () => {
    const run = await runCli(["screen", "in.jsonl", ...canary()], { cwd: dir });
    expect(run.stderr).toMatch(
      /^warning: canary at .* answered, but its reply could not be used \(http_error\) for 5 items of 6 \(http_error 3, output_limit 1, empty_response 1\); the canary did not screen them; fix: /m,
    );
  });

  it("ingest does the same, by records", async () => {
    const run = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", ...canary()], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^warning: canary at .* answered, but its reply could not be used \(http_error\) for 5 records of 6 \(http_error 3, output_limit 1, empty_response 1\); the canary did not screen them; fix: /m,
    );
  });

  it("an outage and unusable replies in one run each get their line, neither hidden by the other", async () => {
    const texts = ["Dropped call one.", "Server error one.", "Server error two.", "Empty reply here.", "A plain note."];
    await writeFile(join(dir, "mixed.jsonl"), `${texts.map((text) => JSON.stringify({ text })).join("\n")}\n`);
    for (const [command, noun] of [
      ["screen", "item"],
      ["ingest", "record"],
    ] as const) {
      const outputs = command === "ingest" ? ["--manifest", "m.json", "--overwrite"] : [];
      const run = await runCli([command, "mixed.jsonl", ...outputs, ...canary()], { cwd: dir });
      expect(run.stderr).toMatch(new RegExp(`^warning: canary at .* is not reachable.* for 1 ${noun} of 5: unavailable; `, "m"));
      expect(run.stderr).toMatch(
        new RegExp(
          `^warning: canary at .* answered, but its reply could not be used \\(http_error\\) for 3 ${noun}s of 5 \\(http_error 2, empty_response 1\\); `,
          "m",
        ),
      );
    }
  });
});
