// The Kubernetes example parses and says what docs/shards.md says: an Indexed Job whose pod
// failure policy fails an index on exit 3 only, the wrapper that turns ingest's published
// results (0, 1, 2) into a succeeded pod, and an index step over the same N shards.
// (`yaml` is installed with the documentation tooling; no dependency is added for this test.)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
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
    const missing = spawnSync("sh", [join(DIR, "shard-wrapper.sh")], { env: { PATH: process.env["PATH"] ?? "", SHARDS: "4" }, encoding: "utf8" });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("JOB_COMPLETION_INDEX");
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
