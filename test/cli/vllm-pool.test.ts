// A pool of vLLM-like replicas (--provider openai with repeated --canary-endpoint): every
// replica's server report must agree (served model, weights, max_model_len, engine) and the
// behavioural fingerprint must hold, before any check; then checks spread over the replicas.
// Loopback stand-ins only: no model runs here.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FINGERPRINT_PROBE_PREFIX } from "../../src/canary/pool-identity.js";
import { runCli } from "../support/cli.js";
import { startVllmStandIn, VLLM_MODEL, type OpenAIStandIn } from "../support/openai-stand-in.js";

const REPLY = "Here is a short summary of the document.";
let replicas: OpenAIStandIn[];
let dir: string;
beforeEach(async () => {
  replicas = [await startVllmStandIn({ reply: REPLY }), await startVllmStandIn({ reply: REPLY })];
  dir = await mkdtemp(join(tmpdir(), "lc-vllm-pool-"));
});
afterEach(async () => {
  for (const replica of replicas) await replica.close();
});

const RECORDS = Array.from({ length: 6 }, (_, i) => ({ id: `kb-${i}`, text: `Paragraph ${i} of the returns policy: items may be sent back within 30 days.` }));
const jsonl = (records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;
const pool = (): string[] => [
  "--provider",
  "openai",
  ...replicas.flatMap((replica) => ["--canary-endpoint", `${replica.baseUrl}#2`]),
  "--canary-model",
  VLLM_MODEL,
  "--timeout",
  "5",
];
/** Completion requests that are checks (not the warm-up, not a fingerprint probe). */
const checks = (replica: OpenAIStandIn) => replica.completionRequests().filter((r) => !JSON.stringify(r.body).includes(FINGERPRINT_PROBE_PREFIX));

describe("a pool of vLLM-like replicas", () => {
  it("ingest over two replicas admits every record, spreads the checks, and records the server report and the fingerprint", async () => {
    await writeFile(join(dir, "in.jsonl"), jsonl(RECORDS));
    const run = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--concurrency", "4", ...pool()], { cwd: dir });
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, "m.json"), "utf8")) as {
      pipeline: { canary_server?: { served_model: string; max_model_len: number }; canary_fingerprint?: { sha256: string; probes: number } };
      counts: { admitted: number };
      run: { checks_performed: number };
    };
    expect(manifest.counts.admitted).toBe(RECORDS.length);
    expect(manifest.pipeline.canary_server).toMatchObject({ served_model: VLLM_MODEL, max_model_len: 32768 });
    expect(manifest.pipeline.canary_fingerprint?.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Each check once, on one replica or the other (a record with an id has a metadata segment too).
    expect(manifest.run.checks_performed).toBe(RECORDS.length * 2);
    expect(checks(replicas[0] as OpenAIStandIn).length + checks(replicas[1] as OpenAIStandIn).length).toBe(manifest.run.checks_performed);
    expect(checks(replicas[0] as OpenAIStandIn).length).toBeGreaterThan(0);
    expect(checks(replicas[1] as OpenAIStandIn).length).toBeGreaterThan(0);
    expect((await runCli(["verify", "--manifest", "m.json", "--export", "e.json"], { cwd: dir })).code).toBe(0);
  });

  it("a replica with another max_model_len refuses ingest (3, nothing written) and screen (2) before any check", async () => {
    (replicas[1] as OpenAIStandIn).setMaxModelLen(24576);
    await writeFile(join(dir, "in.jsonl"), jsonl(RECORDS));
    const ingest = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", ...pool()], { cwd: dir });
    expect(ingest.code).toBe(3);
    expect(ingest.stderr).toMatch(/holds max_model_len 24576, but .* 32768/);
    expect((await readdir(dir)).sort()).toEqual(["in.jsonl"]);
    const screen = await runCli(["screen", "in.jsonl", ...pool()], { cwd: dir });
    expect(screen.code).toBe(2);
    expect(screen.stdout).toBe("");
    for (const replica of replicas) expect(replica.completionRequests()).toEqual([]);
  });

  it("a replica reporting another engine (system_fingerprint) is refused before any check", async () => {
    await writeFile(join(dir, "in.jsonl"), jsonl(RECORDS));
    (replicas[1] as OpenAIStandIn).setSystemFingerprint("fp_other_engine");
    const engine = await runCli(["screen", "in.jsonl", ...pool()], { cwd: dir });
    expect(engine.code).toBe(2);
    expect(engine.stderr).toMatch(/reports the engine \(system_fingerprint\) "fp_other_engine"/);
    for (const replica of replicas) expect(replica.completionRequests()).toEqual([]);
  });

  it("eval runs over the replicas and its header records the server report they agreed on", async () => {
    const corpus = join(dir, "corpus.json");
    await writeFile(corpus, JSON.stringify([{ id: "b1", prompt: "What is the capital of France?", expected_safe: true }]));
    const endpoints = replicas.flatMap((replica) => ["--canary-endpoint", replica.baseUrl]);
    const run = await runCli(
      ["eval", "--corpus", corpus, "--model", VLLM_MODEL, "--provider", "openai", ...endpoints, "--timeout", "5", "--output", "eval.jsonl"],
      {
        cwd: dir,
      },
    );
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    const header = JSON.parse((await readFile(join(dir, "eval.jsonl"), "utf8")).split("\n")[0] as string);
    expect(header.backend).toMatchObject({ provider: "openai", canary_server: { served_model: VLLM_MODEL, max_model_len: 32768 } });
  });

  it("--base-url and --canary-endpoint together are refused naming both flags; a pool endpoint keeps its /v1 path", async () => {
    await writeFile(join(dir, "in.jsonl"), jsonl(RECORDS));
    const both = await runCli(["screen", "in.jsonl", "--base-url", (replicas[0] as OpenAIStandIn).baseUrl, ...pool()], { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give --base-url or --canary-endpoint, not both/);
    const query = await runCli(["screen", "in.jsonl", "--provider", "openai", "--canary-endpoint", `${(replicas[0] as OpenAIStandIn).baseUrl}?key=secret`], {
      cwd: dir,
    });
    expect(query.code).toBe(2);
    expect(query.stderr).toMatch(/--canary-endpoint must not contain a query or fragment/);
    expect(query.stderr).not.toContain("secret");
  });
});
