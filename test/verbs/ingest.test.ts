// The `ingest` verb as a library call: the canary given as settings, the run's pipeline built
// from them once the policy is known (one num_ctx for the policy's segments), the reporter told
// where the canary calls went, and the settings read only after the targets were checked.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { resolvePolicy } from "../../src/documents/policy.js";
import { canaryNumCtxForPolicy } from "../../src/ingest/files.js";
import { ingest } from "../../src/verbs/ingest.js";
import { RECORDS, dirState, standInAndDirPerTest, verifyPairIn } from "../support/publish-fixtures.js";

const run = standInAndDirPerTest();
beforeEach(() => writeFile(join(run.dir, "in.jsonl"), RECORDS));

const canary = () => ({ mode: "full" as const, canaryModel: "qwen2.5:1.5b", ollamaUrl: run.ollama.url, canaryTimeout: 10, enableCanary: true });

describe("the ingest verb", () => {
  it("publishes a pair that verifies, sends num_ctx for the policy's segments and tells the reporter where the calls went", async () => {
    const events: string[] = [];
    const result = await ingest(
      { input: "in.jsonl", manifest: "m.json", export: "e.json", cwd: run.dir, policy: { segment_chars: 1000 }, canary },
      {
        start: () => void events.push("start"),
        finished: (run, target) => void events.push(`finished ${run.summary.head.run.records_total} ${target.provider} ${target.url} ${target.model}`),
      },
    );
    expect(result.outcome).toBe(0);
    expect(events).toEqual(["start", `finished 2 ollama ${new URL(run.ollama.url).origin} qwen2.5:1.5b`]);
    expect((await verifyPairIn(run.dir)).consistent).toBe(true);
    const numCtx = canaryNumCtxForPolicy(resolvePolicy({ segment_chars: 1000 }));
    const sent = run.ollama.chatRequests().map((request) => (request.body as { options?: { num_ctx?: number } }).options?.num_ctx);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set([numCtx]));
  });

  it("reads the canary settings only after the targets are checked: a target refusal comes first", async () => {
    let asked = false;
    const refused = ingest({
      input: "in.jsonl",
      manifest: "in.jsonl",
      cwd: run.dir,
      canary: () => {
        asked = true;
        throw new Error("the canary settings were read");
      },
    });
    await expect(refused).rejects.toMatchObject({ code: "publish" });
    expect(asked).toBe(false);
    expect((await dirState(run.dir)).files).toEqual(["in.jsonl"]);
  });
});
