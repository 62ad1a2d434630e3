// The canary endpoint pool: identity pinned before any check, retries on another endpoint,
// take-out, least-loaded dispatch under per-endpoint caps, and a manifest that does not depend on
// the number of endpoints. Every endpoint is a real Ollama-like stand-in on 127.0.0.1.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePoolEndpoint, parsePoolEndpoints } from "../../src/canary/pool-endpoints.js";
import { type CanaryPool, MAX_POOL_ATTEMPTS, TAKE_OUT_AFTER } from "../../src/canary/pool.js";
import { pipelineIdentity } from "../../src/cache/identity.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { runService } from "../../src/server/run-service.js";
import { freePort } from "../support/free-port.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { startOpenAIStandIn } from "../support/openai-stand-in.js";

let dir: string;
let standIns: OllamaStandIn[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lc-pool-"));
});
afterEach(async () => {
  await Promise.all(standIns.map((s) => s.close()));
  standIns = [];
  rmSync(dir, { recursive: true, force: true });
});

async function standIn(options: Parameters<typeof startOllamaStandIn>[0] = {}): Promise<OllamaStandIn> {
  const s = await startOllamaStandIn(options);
  standIns.push(s);
  return s;
}

function writeInput(count: number): string {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ id: `r${i}`, text: `Ordinary note number ${i} about the weather and the harbour.` }));
  const path = join(dir, "in.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const endpointArgs = (...urls: string[]): string[] => urls.flatMap((url) => ["--canary-endpoint", url]);

async function ingest(urls: string[], extra: string[] = [], records = 4): Promise<Awaited<ReturnType<typeof runCli>>> {
  return runCli(["ingest", writeInput(records), "--manifest-version", "1", "--manifest", "m.json", "--timeout", "5", ...endpointArgs(...urls), ...extra], {
    cwd: dir,
  });
}

/** Every /api/chat request a stand-in saw (warm-ups and fingerprint probes included). */
const anyChat = (s: OllamaStandIn): number => s.requests.filter((r) => r.path === "/api/chat").length;

function manifestWithoutTimes(path: string): unknown {
  const doc = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown> & { records: Array<Record<string, unknown>> };
  const { started_at: _s, finished_at: _f, ...rest } = doc;
  // Latencies are the only other fields that may differ (the verdict's summary quotes one).
  const records = doc.records.map(
    (record) =>
      JSON.parse(
        JSON.stringify(record, (key, value: unknown) =>
          key === "latency" || key === "total_latency" || key === "checked_at"
            ? undefined
            : key === "summary" && typeof value === "string"
              ? value.replace(/\(\d+\.\d+s\)/g, "(…s)")
              : value,
        ),
      ) as unknown,
  );
  return { ...rest, records };
}

function logLines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the URL#N form", () => {
  it("URL#N parses the per-endpoint concurrency and errors name the flag, never the value", () => {
    expect(parsePoolEndpoint("http://127.0.0.1:11434#8", "--canary-endpoint")).toEqual({ url: "http://127.0.0.1:11434", concurrency: 8 });
    expect(parsePoolEndpoint("http://127.0.0.1:11434", "--canary-endpoint")).toEqual({ url: "http://127.0.0.1:11434", concurrency: null });
    for (const bad of ["http://h:1#0", "http://h:1#x", "http://h:1#", "http://h:1#1025"]) {
      expect(() => parsePoolEndpoint(bad, "--canary-endpoint")).toThrow(/--canary-endpoint: the concurrency after "#"/);
    }
    expect(() => parsePoolEndpoint("http://user:s3cret@h:1#2", "--canary-endpoint")).toThrow("--canary-endpoint must not contain user info");
    expect(() => parsePoolEndpoint("http://h:1/?token=s3cret", "--canary-endpoint")).toThrow(/^--canary-endpoint must not contain a query/);
    expect(() => parsePoolEndpoints(["http://h:1#2", "http://H:1#4"], "--canary-endpoint")).toThrow("lists the endpoint http://h:1 more than once");
  });

  it("the CLI refuses --ollama-url with --canary-endpoint, and a secret in a bad endpoint is never echoed", async () => {
    const both = await runCli(["ingest", writeInput(1), "--manifest", "m.json", "--ollama-url", "http://127.0.0.1:1", ...endpointArgs("http://127.0.0.1:2")], {
      cwd: dir,
    });
    expect(both.code).toBe(3);
    expect(both.stderr).toContain("give --ollama-url or --canary-endpoint, not both");
    const secret = await runCli(["screen", "-", ...endpointArgs("http://user:TOPSECRET@127.0.0.1:2#2")], { cwd: dir, stdin: '"hi"\n' });
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain("--canary-endpoint must not contain user info");
    expect(secret.stderr).not.toContain("TOPSECRET");
    const log = await runCli(["check", "--text", "hi", "--endpoint-log", "x.jsonl"], { cwd: dir });
    expect(log.code).toBe(2);
    expect(log.stderr).toContain("--endpoint-log needs --canary-endpoint");
    const over = await runCli(["ingest", writeInput(1), "--manifest", "m.json", "--endpoint-log", "./m.json", ...endpointArgs("http://127.0.0.1:2")], {
      cwd: dir,
    });
    expect(over.code).toBe(3);
    expect(over.stderr).toContain("--endpoint-log names the same file as --manifest");
    expect(existsSync(join(dir, "m.json"))).toBe(false);
  });
});

describe("identity is pinned before any check", () => {
  it("a digest mismatch refuses the ingest (exit 3) before any /api/chat call, nothing written", async () => {
    const a = await standIn();
    const b = await standIn({ models: [{ name: "qwen2.5:1.5b", digest: "f".repeat(64) }] });
    const run = await ingest([a.url, b.url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/serves qwen2\.5:1\.5b with digest f{64}, but http:\/\/127\.0\.0\.1:\d+ with digest/);
    expect(anyChat(a) + anyChat(b)).toBe(0);
    expect(existsSync(join(dir, "m.json"))).toBe(false);
  });

  it("an endpoint that serves another model refuses before any /api/chat call", async () => {
    const a = await standIn();
    const b = await standIn({ models: [{ name: "qwen3:4b" }] });
    const run = await ingest([a.url, b.url]);
    expect(run.code).toBe(3);
    // Named as a single canary's refusal names it: what the endpoint serves, and the fix.
    expect(run.stderr).toContain(`canary model qwen2.5:1.5b is not available at ${b.url} (it serves: qwen3:4b); fix: ollama pull qwen2.5:1.5b`);
    expect(anyChat(a) + anyChat(b)).toBe(0);
    expect(existsSync(join(dir, "m.json"))).toBe(false);
  });

  it("a trained context mismatch refuses before any /api/chat call; an unreachable endpoint refuses too", async () => {
    const a = await standIn();
    const b = await standIn({ contextLength: 16384 });
    const run = await ingest([a.url, b.url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("reports a trained context length of 16384, but");
    expect(anyChat(a) + anyChat(b)).toBe(0);
    const down = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await ingest([a.url, down]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(
      `canary endpoint ${down} is not reachable (connection refused); fix: start it (ollama serve) or correct its URL in --canary-endpoint`,
    );
    expect(a.chatRequests()).toHaveLength(0);
    expect(existsSync(join(dir, "m.json"))).toBe(false);
  });

  it("a context shorter than a segment needs refuses before any /api/chat call", async () => {
    const a = await standIn();
    const b = await standIn();
    a.setContextLength(1024);
    b.setContextLength(1024);
    const run = await ingest([a.url, b.url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/trained context length \(1024\) is smaller than the \d+ tokens a segment needs/);
    expect(anyChat(a) + anyChat(b)).toBe(0);
  });

  it("a loaded context (num_ctx in /api/ps) that differs refuses before any check is sent", async () => {
    const a = await standIn();
    const b = await standIn();
    b.setPs({ contextLength: 65536 });
    const run = await ingest([a.url, b.url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/has a loaded context of 65536, but .* has a loaded context of \d+/);
    // Only the warm-up calls that load the model (needed to read /api/ps), no fingerprint, no check.
    expect(a.chatRequests().length + b.chatRequests().length).toBe(0);
    expect(a.fingerprintRequests().length + b.fingerprintRequests().length).toBe(0);
    expect(existsSync(join(dir, "m.json"))).toBe(false);
  });

  it("a behavioural fingerprint mismatch (a mislabelled model) refuses before any check", async () => {
    const a = await standIn();
    const b = await standIn();
    const c = await standIn();
    c.setFingerprintReply((probe) => `Another model answers: ${probe.length}`);
    const run = await ingest([a.url, b.url, c.url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`canary endpoint ${c.url} answers the fixed fingerprint probes differently from ${a.url}`);
    for (const s of [a, b, c]) {
      expect(s.fingerprintRequests()).toHaveLength(3);
      expect(s.chatRequests()).toHaveLength(0);
    }
    expect(existsSync(join(dir, "m.json"))).toBe(false);
  });

  it("screen and check refuse a mismatched pool with exit 2 before any check", async () => {
    const a = await standIn();
    const b = await standIn({ models: [{ name: "qwen2.5:1.5b", digest: "e".repeat(64) }] });
    const screen = await runCli(["screen", "-", ...endpointArgs(a.url, b.url)], { cwd: dir, stdin: '"hello"\n' });
    expect(screen.code).toBe(2);
    expect(screen.stdout).toBe("");
    expect(screen.stderr).toContain("digest");
    const check = await runCli(["check", "--text", "hello", ...endpointArgs(a.url, b.url)], { cwd: dir });
    expect(check.code).toBe(2);
    expect(anyChat(a) + anyChat(b)).toBe(0);
  });

  it("eval runs through a pool, and refuses a mismatched one with exit 2 before any case", async () => {
    const a = await standIn();
    const b = await standIn();
    writeFileSync(join(dir, "c.json"), JSON.stringify([{ id: "a", prompt: "What is the capital of France?", expected_safe: true }]));
    const good = await runCli(["eval", "--corpus", "c.json", "--model", "qwen2.5:1.5b", "--output", "run.jsonl", ...endpointArgs(a.url, b.url)], { cwd: dir });
    expect(good.code).toBe(0);
    expect(a.chatRequests().length + b.chatRequests().length).toBe(1);
    const header = JSON.parse(readFileSync(join(dir, "run.jsonl"), "utf8").split("\n")[0] as string) as { model_digest: string | null };
    expect(header.model_digest).toMatch(/^[0-9a-f]{64}$/);
    b.setFingerprintReply("another model");
    const c = await standIn();
    c.setFingerprintReply("another model");
    const bad = await runCli(["eval", "--corpus", "c.json", "--model", "qwen2.5:1.5b", "--output", "bad.jsonl", ...endpointArgs(a.url, c.url)], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("answers the fixed fingerprint probes differently");
    expect(c.chatRequests()).toHaveLength(0);
    expect(existsSync(join(dir, "bad.jsonl"))).toBe(false);
  });

  it("serve pins the pool before it binds a port, and refuses a mismatched one", async () => {
    const a = await standIn();
    const b = await standIn({ models: [{ name: "qwen2.5:1.5b", digest: "d".repeat(64) }] });
    const log: string[] = [];
    const run = runService({
      pipeline: { canaryPool: { endpoints: parsePoolEndpoints([a.url, b.url], "--canary-endpoint") } },
      service: { maxConcurrent: 2, maxQueue: 3, readTimeoutMs: 1000, maxConnections: 8, allowOrigins: [] },
      port: 0,
      log: (_level, message) => log.push(message),
      stop: new Promise(() => {}),
      force: new Promise(() => {}),
    });
    await expect(run).rejects.toMatchObject({ code: "backend" });
    expect(log.some((line) => line.includes("Port:"))).toBe(false);
    expect(anyChat(a) + anyChat(b)).toBe(0);
  });

  it("the manifest records the pinned identity and fingerprint, the same for 1 and 3 endpoints apart from timestamps", async () => {
    const a = await standIn({ latencyMs: 5 });
    const b = await standIn({ latencyMs: 5 });
    const c = await standIn({ latencyMs: 5 });
    const one = await runCli(["ingest", writeInput(12), "--manifest-version", "1", "--manifest", "one.json", "--concurrency", "4", ...endpointArgs(a.url)], {
      cwd: dir,
    });
    expect(one.code).toBe(0);
    const three = await runCli(
      ["ingest", writeInput(12), "--manifest-version", "1", "--manifest", "three.json", "--concurrency", "4", ...endpointArgs(a.url, `${b.url}#2`, c.url)],
      {
        cwd: dir,
      },
    );
    expect(three.code).toBe(0);
    const m1 = manifestWithoutTimes(join(dir, "one.json"));
    expect(manifestWithoutTimes(join(dir, "three.json"))).toEqual(m1);
    const pipeline = (m1 as { pipeline: Record<string, unknown> }).pipeline;
    expect(pipeline["canary_model_digest"]).toMatch(/^[0-9a-f]{64}$/);
    expect(pipeline["canary_context_verified"]).toBe(true);
    expect(pipeline["canary_fingerprint"]).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), probes: 3 });
    // All three endpoints took checks.
    for (const s of [b, c]) expect(s.chatRequests().length).toBeGreaterThan(0);
    const verify = await runCli(["verify", "--manifest", "three.json"], { cwd: dir });
    expect(verify.code).toBe(0);
  });
});

describe("faults", () => {
  it("a 503 is retried on another endpoint and the check is recorded once", async () => {
    const a = await standIn();
    const b = await standIn();
    a.enqueue({ fault: "status", status: 503, body: "overloaded" });
    const run = await ingest([a.url, b.url], ["--endpoint-log", "endpoints.jsonl"], 3);
    expect(run.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, "m.json"), "utf8")) as { records: Array<{ admission: string; segments_checked: number }> };
    expect(manifest.records).toHaveLength(3);
    expect(manifest.records.every((r) => r.admission === "admitted")).toBe(true);
    const checks = manifest.records.reduce((sum, r) => sum + r.segments_checked, 0);
    // Every check once, and the one that met the 503 once more.
    expect(a.chatRequests().length + b.chatRequests().length).toBe(checks + 1);
    expect(logLines(join(dir, "endpoints.jsonl")).filter((l) => l["outcome"] === "ok")).toHaveLength(checks);
    const log = logLines(join(dir, "endpoints.jsonl"));
    const first = log.filter((line) => line["check"] === 1);
    expect(first.map((l) => [l["attempt"], l["endpoint"], l["outcome"], l["http_status"], l["retried"]])).toEqual([
      [1, a.url, "http_error", 503, true],
      [2, b.url, "ok", null, false],
    ]);
    // The identical request went to both endpoints.
    expect(b.chatRequests()[0]?.rawBody).toBe(a.chatRequests()[0]?.rawBody);
    expect(readFileSync(join(dir, "m.json"), "utf8")).not.toContain(a.url);
  });

  it("a closed connection is retried on another endpoint; a 400 is not retried", async () => {
    const a = await standIn();
    const b = await standIn();
    const pool = poolPipeline([a.url, b.url]);
    a.enqueue({ fault: "drop" });
    const verdict = await pool.pipeline.check("An ordinary sentence about tea.");
    expect(verdict.degraded).toBe(false);
    expect(pool.attempts.map((x) => [x.endpoint, x.outcome])).toEqual([
      [a.url, "unavailable"],
      [b.url, "ok"],
    ]);
    pool.attempts.length = 0;
    a.enqueue({ fault: "status", status: 400, body: "bad" });
    const refused = await pool.pipeline.check("Another ordinary sentence.");
    expect(refused.degraded).toBe(true);
    expect(pool.attempts.map((x) => [x.endpoint, x.outcome, x.retried])).toEqual([[a.url, "http_error", false]]);
  });

  it("a timeout is retried on another endpoint", async () => {
    const a = await standIn();
    const b = await standIn();
    const pool = poolPipeline([a.url, b.url], 0.5);
    await (pool.pipeline.probe as CanaryPool).pin();
    a.enqueue({ fault: "hang" });
    const verdict = await pool.pipeline.check("An ordinary sentence about tea.");
    expect(verdict.degraded).toBe(false);
    expect(pool.attempts.map((x) => [x.endpoint, x.outcome, x.retried])).toEqual([
      [a.url, "timeout", true],
      [b.url, "ok", false],
    ]);
  });

  it("a retried check never goes beyond MAX_POOL_ATTEMPTS endpoints", async () => {
    const s = await Promise.all([standIn(), standIn(), standIn(), standIn()]);
    for (const x of s) x.enqueue({ fault: "status", status: 503 });
    const pool = poolPipeline(s.map((x) => x.url));
    const verdict = await pool.pipeline.check("A sentence.");
    expect(verdict.degraded).toBe(true);
    expect(pool.attempts).toHaveLength(MAX_POOL_ATTEMPTS);
    expect(new Set(pool.attempts.map((x) => x.endpoint)).size).toBe(MAX_POOL_ATTEMPTS);
  });

  it("an endpoint that keeps failing is taken out with a warning on stderr, and no record is degraded", async () => {
    const a = await standIn();
    const b = await standIn();
    a.setReply({ fault: "drop" });
    const run = await ingest([a.url, b.url], ["--endpoint-log", "endpoints.jsonl"], 6);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: canary endpoint ${a.url} taken out of the pool after ${TAKE_OUT_AFTER} consecutive failures (unavailable); 1 endpoint left`,
    );
    expect(a.chatRequests()).toHaveLength(TAKE_OUT_AFTER);
    const manifest = JSON.parse(readFileSync(join(dir, "m.json"), "utf8")) as { records: Array<{ admission: string; segments_checked: number }> };
    expect(b.chatRequests()).toHaveLength(manifest.records.reduce((sum, r) => sum + r.segments_checked, 0));
    expect(manifest.records.map((r) => r.admission)).toEqual(Array(6).fill("admitted"));
    const log = logLines(join(dir, "endpoints.jsonl"));
    expect(log.filter((l) => l["taken_out"] === true)).toHaveLength(1);
    expect(log.every((l) => typeof l["latency_ms"] === "number" && typeof l["time"] === "string")).toBe(true);
  });

  it("when every endpoint is taken out, checks fail as unavailable and the circuit breaker stops the run", async () => {
    const a = await standIn();
    const b = await standIn();
    a.setReply({ fault: "drop" });
    b.setReply({ fault: "drop" });
    const run = await ingest([a.url, b.url], [], 8);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`taken out of the pool after ${TAKE_OUT_AFTER} consecutive failures (unavailable); no endpoint is left`);
    expect(run.stderr).toContain("stopped sending checks");
    expect(a.chatRequests().length + b.chatRequests().length).toBeLessThanOrEqual(2 * TAKE_OUT_AFTER);
  });
});

describe("the endpoint log on standard error", () => {
  /** The endpoint log's lines among a run's stderr: each a JSON object on a line of its own. */
  const stderrLog = (stderr: string) =>
    stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("--endpoint-log - writes one line per attempt to the command's stderr, leaves stdout to the verdict and creates no file", async () => {
    const a = await standIn();
    const run = await runCli(["check", "--text", "An ordinary sentence about tea.", "--timeout", "5", ...endpointArgs(a.url), "--endpoint-log", "-"], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ safe: true });
    const log = stderrLog(run.stderr);
    expect(log.map((line) => [line["check"], line["attempt"], line["endpoint"], line["outcome"]])).toEqual([[1, 1, a.url, "ok"]]);
    expect(existsSync(join(dir, "-"))).toBe(false);
  });

  it("--endpoint-log /dev/stderr is the same stream, not a symlink to refuse", async () => {
    const a = await standIn();
    const run = await runCli(["screen", writeInput(2), "--timeout", "5", ...endpointArgs(a.url), "--endpoint-log", "/dev/stderr"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("symbolic link");
    expect(stderrLog(run.stderr).filter((line) => line["outcome"] === "ok").length).toBeGreaterThanOrEqual(2);
  });

  it("any other symlink is still refused before the first check", async () => {
    const a = await standIn();
    symlinkSync(join(dir, "elsewhere.jsonl"), join(dir, "link.jsonl"));
    const run = await runCli(["check", "--text", "hi", ...endpointArgs(a.url), "--endpoint-log", "link.jsonl"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: --endpoint-log: link.jsonl is a symbolic link (never followed)\n");
    expect(anyChat(a)).toBe(0);
    expect(existsSync(join(dir, "elsewhere.jsonl"))).toBe(false);
  });
});

describe("provider-agnostic", () => {
  it("a pool of OpenAI-compatible endpoints pins, fingerprints and checks the reply's model name", async () => {
    const a = await startOpenAIStandIn();
    const b = await startOpenAIStandIn();
    try {
      const warnings: string[] = [];
      const pipeline = new SecurityPipeline({
        provider: "openai",
        apiKey: "sk-test",
        // The library takes an OpenAI-compatible base URL with its /v1 path as it is.
        canaryPool: { endpoints: [a, b].map((api) => ({ url: api.baseUrl, concurrency: null })), onWarning: (m) => warnings.push(m) },
        canaryTimeout: 5,
      });
      const pinned = await (pipeline.probe as CanaryPool).pin();
      expect(pinned.ok).toBe(true);
      const verdict = await pipeline.check("An ordinary sentence about tea.");
      expect(verdict.degraded).toBe(false);
      b.enqueue({ rawBody: { model: "another-model", choices: [{ message: { role: "assistant", content: "Hi." }, finish_reason: "stop" }] } });
      a.enqueue({ rawBody: { model: "another-model", choices: [{ message: { role: "assistant", content: "Hi." }, finish_reason: "stop" }] } });
      const mismatched = await pipeline.check("Another ordinary sentence.");
      expect(mismatched.degraded).toBe(true);
      expect(warnings.join("\n")).toContain("answered as a model other than gpt-4o-mini");
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("the verdict cache", () => {
  it("the fingerprint is part of the cache identity, and an unpinned pool has none", async () => {
    const a = await standIn();
    const b = await standIn();
    const pool = poolPipeline([a.url, b.url]);
    expect(pipelineIdentity(pool.pipeline, { scope: "ingest_segment", modelDigest: "a".repeat(64) })).toEqual({
      ok: false,
      reason: "the canary pool's identity is not pinned",
    });
    const pinned = await (pool.pipeline.probe as CanaryPool).pin();
    expect(pinned.ok).toBe(true);
    const identity = pipelineIdentity(pool.pipeline, { scope: "ingest_segment", modelDigest: "a".repeat(64) });
    if (!identity.ok || !pinned.ok) throw new Error("expected an identity");
    expect(identity.identity.pool_fingerprint_sha256).toBe(pinned.identity.fingerprintSha256);
    // Another fingerprint (another server build answering differently) is another key.
    const c = await standIn();
    const d = await standIn();
    c.setFingerprintReply("x");
    d.setFingerprintReply("x");
    const other = poolPipeline([c.url, d.url]);
    await (other.pipeline.probe as CanaryPool).pin();
    const otherIdentity = pipelineIdentity(other.pipeline, { scope: "ingest_segment", modelDigest: "a".repeat(64) });
    expect(otherIdentity.ok && otherIdentity.key).not.toBe(identity.key);
    // A single endpoint's identity has no fingerprint field (its keys are unchanged).
    const single = new SecurityPipeline({ ollamaUrl: a.url });
    const singleIdentity = pipelineIdentity(single, { scope: "ingest_segment", modelDigest: "a".repeat(64) });
    expect(singleIdentity.ok && "pool_fingerprint_sha256" in singleIdentity.identity).toBe(false);
  });
});

describe("dispatch", () => {
  it("least-loaded dispatch respects per-endpoint caps under the global cap", async () => {
    const a = await standIn({ latencyMs: 60 });
    const b = await standIn({ latencyMs: 60 });
    const pool = poolPipeline([`${a.url}#1`, `${b.url}#3`]);
    await (pool.pipeline.probe as CanaryPool).pin();
    const texts = Array.from({ length: 12 }, (_, i) => `Ordinary sentence ${i}.`);
    const verdicts = await Promise.all(texts.map((t) => pool.pipeline.check(t)));
    expect(verdicts.every((v) => !v.degraded)).toBe(true);
    expect(a.maxConcurrentChats).toBe(1);
    expect(b.maxConcurrentChats).toBe(3);
    // With 4 slots in all and equal latency, the endpoint with 3 slots takes about 3 checks in 4.
    expect(b.chatRequests().length).toBeGreaterThanOrEqual(8);
    expect(a.chatRequests().length).toBeGreaterThanOrEqual(2);
  });

  it("without caps the least-loaded endpoint gets the next check", async () => {
    const a = await standIn({ latencyMs: 40 });
    const b = await standIn({ latencyMs: 40 });
    const c = await standIn({ latencyMs: 40 });
    const pool = poolPipeline([a.url, b.url, c.url]);
    await (pool.pipeline.probe as CanaryPool).pin();
    await Promise.all(Array.from({ length: 6 }, (_, i) => pool.pipeline.check(`Sentence ${i}.`)));
    expect([a, b, c].map((s) => s.chatRequests().length)).toEqual([2, 2, 2]);
  });

  it("behind a router, a reply naming another model degrades that check and warns", async () => {
    const router = await standIn();
    const pool = poolPipeline([router.url]);
    router.enqueue({
      rawBody: {
        model: "some-other-model:7b",
        message: { role: "assistant", content: "Hello." },
        done: true,
        done_reason: "stop",
        prompt_eval_count: 60,
        eval_count: 2,
      },
    });
    const verdict = await pool.pipeline.check("An ordinary sentence about tea.");
    expect(verdict.degraded).toBe(true);
    expect(verdict.safe === false || verdict.degraded).toBe(true);
    expect(pool.warnings.join("\n")).toContain("answered as a model other than qwen2.5:1.5b");
    expect(pool.warnings.join("\n")).not.toContain("some-other-model");
    const next = await pool.pipeline.check("Another ordinary sentence.");
    expect(next.degraded).toBe(false);
  });
});

function poolPipeline(urls: string[], timeout = 5): { pipeline: SecurityPipeline; attempts: Array<Record<string, unknown>>; warnings: string[] } {
  const attempts: Array<Record<string, unknown>> = [];
  const warnings: string[] = [];
  const pipeline = new SecurityPipeline({
    canaryPool: {
      endpoints: parsePoolEndpoints(urls, "--canary-endpoint"),
      onAttempt: (attempt) => attempts.push({ ...attempt }),
      onWarning: (message) => warnings.push(message),
    },
    canaryTimeout: timeout,
  });
  return { pipeline, attempts, warnings };
}
