// The Kubernetes example parses and says what docs/shards.md says: an Indexed Job whose pod
// failure policy fails an index on exit 3 only, the wrapper that turns ingest's published
// results (0, 1, 2) into a succeeded pod, and an index step over the same N shards.
// (`yaml` is installed with the documentation tooling; no dependency is added for this test.)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseAllDocuments } from "yaml";
import { requiredCanaryContext } from "../../src/canary/context.js";
import { resolvePipelineOptions } from "../../src/canary/pipeline-options.js";
import { STRICT_V1 } from "../../src/documents/policy.js";
import { FAILURE_MODE_ENV, parseFailureMode } from "../../src/integrations/classify.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/documents/system-prompt.js";
import { startOllamaStandIn } from "../support/ollama-stand-in.js";
import { pipelineFor, startService } from "../support/server-harness.js";

const DIR = resolve(import.meta.dirname, "../../examples/kubernetes");

type Doc = Record<string, any>;

function docs(file: string): Doc[] {
  const parsed = parseAllDocuments(readFileSync(join(DIR, file), "utf8"));
  for (const doc of parsed) expect(doc.errors, file).toEqual([]);
  return parsed.map((doc) => doc.toJS() as Doc);
}

const env = (container: Doc, name: string): string | undefined => (container["env"] as Doc[]).find((e) => e["name"] === name)?.["value"];

describe("examples/kubernetes", () => {
  const scratch = mkdtempSync(join(tmpdir(), "lc-k8s-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("every manifest parses, and the kustomization names files that exist", () => {
    const [kustomization] = docs("kustomization.yaml") as [Doc];
    for (const file of [...kustomization["resources"], ...kustomization["configMapGenerator"][0]["files"], "index-job.yaml"]) {
      expect(existsSync(join(DIR, file)), file).toBe(true);
      if (file.endsWith(".yaml")) expect(docs(file).length).toBeGreaterThan(0);
    }
    expect(kustomization["generatorOptions"]["disableNameSuffixHash"]).toBe(true);
    const kinds = docs("vllm.yaml").map((d) => d["kind"]);
    expect(kinds).toEqual(["Deployment", "Service"]);
  });

  it("the Indexed Job fails an index on exit 3, retries other failures, and both Jobs agree on N", () => {
    const [job] = docs("shards-job.yaml") as [Doc];
    const spec = job["spec"];
    expect(job["kind"]).toBe("Job");
    expect(spec["completionMode"]).toBe("Indexed");
    expect(spec["backoffLimitPerIndex"]).toBeGreaterThan(0);
    expect(spec["template"]["spec"]["restartPolicy"]).toBe("Never");
    const container = spec["template"]["spec"]["containers"][0];
    const rules = spec["podFailurePolicy"]["rules"] as Doc[];
    const failIndex = rules.filter((r) => r["action"] === "FailIndex");
    expect(failIndex).toEqual([{ action: "FailIndex", onExitCodes: { containerName: container["name"], operator: "In", values: [3] } }]);
    // 0, 1 and 2 never reach the policy: the wrapper exits 0 for them.
    expect(container["command"]).toEqual(["sh", "/scripts/shard-wrapper.sh"]);
    expect(env(container, "SHARDS")).toBe(String(spec["completions"]));
    const [index] = docs("index-job.yaml") as [Doc];
    const indexContainer = index["spec"]["template"]["spec"]["containers"][0];
    expect(indexContainer["command"]).toEqual(["sh", "/scripts/index-shards.sh"]);
    expect(env(indexContainer, "SHARDS")).toBe(String(spec["completions"]));
    expect(env(indexContainer, "OUT")).toBe(env(container, "OUT"));
    const [kustomization] = docs("kustomization.yaml") as [Doc];
    for (const podSpec of [spec["template"]["spec"], index["spec"]["template"]["spec"]]) {
      const scripts = (podSpec["volumes"] as Doc[]).find((v) => v["name"] === "scripts");
      expect(scripts?.["configMap"]["name"]).toBe(kustomization["configMapGenerator"][0]["name"]);
    }
  });

  it("the wrapper turns ingest's 0, 1 and 2 into a succeeded pod (keeping the code), and passes 3 and crashes on", () => {
    const fake = join(scratch, "fake-canary.sh");
    // Stands in for little-canary: records its arguments, exits with $FAKE_EXIT.
    writeFileSync(fake, 'printf "%s\\n" "$@" > "$OUT/args"\nexit "$FAKE_EXIT"\n');
    for (const [ingestExit, podExit] of [
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 3],
      [137, 137],
    ] as const) {
      const out = join(scratch, `out-${ingestExit}`);
      const run = spawnSync("sh", [join(DIR, "shard-wrapper.sh")], {
        env: {
          PATH: process.env["PATH"] ?? "",
          SHARDS: "4",
          JOB_COMPLETION_INDEX: "2",
          OUT: out,
          INPUT: "in.jsonl",
          LITTLE_CANARY: `sh ${fake}`,
          FAKE_EXIT: String(ingestExit),
        },
        encoding: "utf8",
      });
      expect(run.status, `ingest exit ${ingestExit}`).toBe(podExit);
      const args = readFileSync(join(out, "args"), "utf8").trim().split("\n");
      expect(args.slice(0, 4)).toEqual(["ingest", "in.jsonl", "--shard", "2/4"]);
      expect(args).toContain(`${out}/shard-2.manifest.json`);
      expect(existsSync(join(out, "shard-2.exit"))).toBe(podExit === 0);
      if (podExit === 0) expect(readFileSync(join(out, "shard-2.exit"), "utf8")).toBe(`${ingestExit}\n`);
    }
    // Exit 3 beside an export with no manifest (an attempt killed while publishing): the wrapper
    // names the export, since a retry would be refused the same way; beside a whole pair it does not.
    for (const manifestToo of [false, true]) {
      const out = join(scratch, `orphan-${manifestToo}`);
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, "shard-2.export.json"), "{}");
      if (manifestToo) writeFileSync(join(out, "shard-2.manifest.json"), "{}");
      const run = spawnSync("sh", [join(DIR, "shard-wrapper.sh")], {
        env: { PATH: process.env["PATH"] ?? "", SHARDS: "4", JOB_COMPLETION_INDEX: "2", OUT: out, LITTLE_CANARY: `sh ${fake}`, FAKE_EXIT: "3" },
        encoding: "utf8",
      });
      expect(run.status).toBe(3);
      expect(run.stderr.includes(`${out}/shard-2.export.json has no manifest beside it`)).toBe(!manifestToo);
    }
    const missing = spawnSync("sh", [join(DIR, "shard-wrapper.sh")], { env: { PATH: process.env["PATH"] ?? "", SHARDS: "4" }, encoding: "utf8" });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("JOB_COMPLETION_INDEX");
  });

  it("vLLM's --max-model-len holds the largest prompt of the runs that use it: an ingest segment and a serve window", () => {
    const [deployment] = docs("vllm.yaml") as [Doc];
    const args = deployment["spec"]["template"]["spec"]["containers"][0]["args"] as string[];
    const maxModelLen = Number(args.find((arg) => arg.startsWith("--max-model-len="))?.split("=")[1]);
    const need = (segmentChars: number) => requiredCanaryContext({ segmentChars, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 });
    const DEFAULT_MAX_INPUT_LENGTH = resolvePipelineOptions({}).maxInputLength;
    // strict/v1's segment for ingest; serve's (and check's) default window for the sidecar.
    expect(maxModelLen).toBeGreaterThanOrEqual(need(STRICT_V1.segment_chars));
    expect(maxModelLen).toBeGreaterThanOrEqual(need(DEFAULT_MAX_INPUT_LENGTH));
    // The numbers the docs and the manifest's comment give are the ones the gates compute.
    const vllmDoc = readFileSync(resolve(DIR, "../../docs/vllm.md"), "utf8");
    const comment = readFileSync(join(DIR, "vllm.yaml"), "utf8");
    for (const text of [vllmDoc, comment]) {
      expect(text).toContain(String(need(STRICT_V1.segment_chars)));
      expect(text).toContain(String(need(DEFAULT_MAX_INPUT_LENGTH)));
    }
  });

  it("the screening sidecar first waits for the canary its serve command names: 0 once it lists a model, 1 past WAIT_SECONDS", async () => {
    const [deployment] = docs("serve-sidecar.yaml") as [Doc];
    const spec = deployment["spec"]["template"]["spec"];
    const [wait] = spec["initContainers"] as [Doc];
    const sidecar = (spec["containers"] as Doc[]).find((c) => c["name"] === "little-canary")!;
    const endpoint = (sidecar["command"] as string[]).find((arg) => arg.startsWith("--canary-endpoint="))!.split("=")[1]!;
    const modelsUrl = env(wait, "CANARY_MODELS_URL") as string;
    expect(new URL(modelsUrl).host).toBe(new URL(endpoint.split("#")[0]!).host);
    expect(new URL(modelsUrl).pathname).toBe("/v1/models");
    let listing = false;
    const server = createServer((_request, response) => {
      if (!listing) response.writeHead(503).end();
      else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: "m" }] }));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/models`;
    const run = (waitSeconds: string): Promise<number | null> =>
      new Promise((done) => {
        const [program, ...args] = wait["command"] as string[];
        expect(program).toBe("node");
        const child = spawn(process.execPath, args, { stdio: "ignore", env: { ...process.env, CANARY_MODELS_URL: url, WAIT_SECONDS: waitSeconds } });
        child.once("close", (code) => done(code));
      });
    try {
      expect(await run("0")).toBe(1);
      listing = true;
      expect(await run("1800")).toBe(0);
    } finally {
      server.close();
    }
  });

  it("the agent is told the sidecar's /check by the variable the host adapters read, on the sidecar's port", () => {
    const [deployment] = docs("serve-sidecar.yaml") as [Doc];
    const containers = deployment["spec"]["template"]["spec"]["containers"] as Doc[];
    const agent = containers.find((c) => c["name"] === "agent")!;
    const sidecar = containers.find((c) => c["name"] === "little-canary")!;
    const endpoint = new URL(env(agent, "LITTLE_CANARY_ENDPOINT") as string);
    expect(endpoint.pathname).toBe("/check");
    expect(endpoint.hostname).toBe("127.0.0.1");
    // The sidecar gives no --port: serve's default, which its probes use too.
    expect((sidecar["command"] as string[]).some((arg) => arg.startsWith("--port"))).toBe(false);
    expect(endpoint.port).toBe("18421");
    const hook = readFileSync(join(DIR, "..", "..", "integrations", "claude-code", "hooks", "user-prompt-submit.mjs"), "utf8");
    expect(hook).toContain("LITTLE_CANARY_ENDPOINT");
  });

  it("a sidecar run --fail-closed has its agent refuse what the service did not screen (the adapters' failure mode, deny)", () => {
    const [deployment] = docs("serve-sidecar.yaml") as [Doc];
    const containers = deployment["spec"]["template"]["spec"]["containers"] as Doc[];
    const agent = containers.find((c) => c["name"] === "agent")!;
    const sidecar = containers.find((c) => c["name"] === "little-canary")!;
    expect(sidecar["command"]).toContain("--fail-closed");
    // Under the adapters' default (allow) a fail-closed refusal is let through with a warning.
    expect(parseFailureMode(env(agent, FAILURE_MODE_ENV))).toEqual({ ok: true, mode: "deny" });
  });

  it("the screening sidecar's readiness probe asks /ready (fails while the canary is down) and its liveness probe /health (does not)", async () => {
    const [deployment] = docs("serve-sidecar.yaml") as [Doc];
    const sidecar = (deployment["spec"]["template"]["spec"]["containers"] as Doc[]).find((c) => c["name"] === "little-canary")!;
    expect(sidecar["command"].slice(0, 2)).toEqual(["little-canary", "serve"]);
    const readiness = sidecar["readinessProbe"]["exec"]["command"] as string[];
    const liveness = sidecar["livenessProbe"]["exec"]["command"] as string[];
    expect(readiness.join(" ")).toContain("http://127.0.0.1:18421/ready");
    expect(liveness.join(" ")).toContain("http://127.0.0.1:18421/health");

    // The probe commands as written, pointed at a service on another port.
    const ollama = await startOllamaStandIn();
    let now = 0;
    const service = await startService(pipelineFor(ollama.url), { now: () => now, healthStaleWaitMs: 30_000 });
    const probe = (command: string[]): Promise<number | null> =>
      new Promise((done) => {
        const [program, ...args] = command.map((part) => part.replace("18421", String(service.port)));
        const child = spawn(program === "node" ? process.execPath : program!, args, { stdio: "ignore" });
        child.once("close", (code) => done(code));
      });
    try {
      expect(await probe(readiness)).toBe(0);
      expect(await probe(liveness)).toBe(0);
      ollama.setRouteFault("/api/tags", { fault: "drop" });
      now = 60_000;
      expect(await probe(readiness)).toBe(1);
      expect(await probe(liveness)).toBe(0);
    } finally {
      await service.close();
      await ollama.close();
    }
  });
});
