// Every Kubernetes manifest under examples/ (every YAML document that has an apiVersion and a kind,
// in every .yaml/.yml file) validates against the Kubernetes API schema, through the validators
// `kubernetes-models` generates from the OpenAPI spec, plus the rule that schema leaves out: a pod
// condition pattern of a podFailurePolicy names its `status`. kubernetes-models 4.5.1 (the newest
// line whose engines include Node 20; 5.x needs Node 22) requires it already, as the Job's minimum,
// Kubernetes 1.29, does; later API versions make it optional, so the check stays explicit here and
// does not depend on which schema the package generates. Planted mistakes in copies of
// the manifests must fail, so that a validator which accepts everything cannot pass this file.
// With kubectl installed (not on CI), the kustomization's build is validated as well.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Pod } from "kubernetes-models/v1/Pod";
import { Service } from "kubernetes-models/v1/Service";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const EXAMPLES = resolve(import.meta.dirname, "../../examples");
const KUBERNETES = join(EXAMPLES, "kubernetes");

type Doc = Record<string, any>;

/** The API objects the examples use, by `apiVersion kind`; a new kind is added here with its model. */
const MODELS: Record<string, (doc: Doc) => { validate(): void }> = {
  "batch/v1 Job": (doc) => new Job(doc as never),
  "apps/v1 Deployment": (doc) => new Deployment(doc as never),
  "v1 Service": (doc) => new Service(doc as never),
  "v1 PersistentVolumeClaim": (doc) => new PersistentVolumeClaim(doc as never),
  "v1 Pod": (doc) => new Pod(doc as never),
  "v1 ConfigMap": (doc) => new ConfigMap(doc as never),
};

/** Read by kustomize on the client, never sent to the API server: no API schema applies. */
const CLIENT_SIDE = new Set(["kustomize.config.k8s.io/v1beta1 Kustomization"]);

const CONDITION_STATUSES = ["True", "False", "Unknown"];

/** Problems the rule above adds to the OpenAPI validators of kubernetes-models (see the header). */
function extraProblems(value: unknown, path: string): string[] {
  if (typeof value !== "object" || value === null) return [];
  const problems: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const at = `${path}/${key}`;
    if (key === "onPodConditions" && Array.isArray(child)) {
      child.forEach((pattern: Doc, i) => {
        if (!CONDITION_STATUSES.includes(pattern?.["status"])) problems.push(`${at}/${i}/status must be one of ${CONDITION_STATUSES.join(", ")}`);
      });
    }
    problems.push(...extraProblems(child, at));
  }
  return problems;
}

/** Problems of one YAML document: parse errors, an unknown kind, the API schema, the extra rules. */
function documentProblems(doc: Doc, where: string): string[] {
  const key = `${doc["apiVersion"]} ${doc["kind"]}`;
  if (CLIENT_SIDE.has(key)) return [];
  const model = MODELS[key];
  if (model === undefined) return [`${where}: no validator for ${key} (add it to MODELS)`];
  const problems: string[] = [];
  try {
    model(doc).validate();
  } catch (error) {
    problems.push(`${where}: ${(error as Error).message}`);
  }
  return [...problems, ...extraProblems(doc, where)];
}

interface FileCheck {
  readonly manifests: number;
  readonly problems: string[];
}

/** Every document of one YAML text; those without apiVersion and kind (a GitHub workflow) are not manifests. */
function checkText(text: string, name: string): FileCheck {
  const problems: string[] = [];
  let manifests = 0;
  parseAllDocuments(text).forEach((parsed, i) => {
    for (const error of parsed.errors) problems.push(`${name}#${i}: ${error.message}`);
    const doc = parsed.toJS() as unknown;
    if (typeof doc !== "object" || doc === null || !("apiVersion" in doc) || !("kind" in doc)) return;
    manifests++;
    problems.push(...documentProblems(doc as Doc, `${name}#${i}`));
  });
  return { manifests, problems };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => join(dir, file))
    .sort();
}

/** kubectl is optional: installed on some developer machines, not on CI (and not a dependency). */
const KUBECTL = process.env["KUBECTL"] ?? "kubectl";

function hasKubectl(): boolean {
  return spawnSync(KUBECTL, ["version", "--client"], { stdio: "ignore" }).status === 0;
}

describe("the Kubernetes manifests under examples/", () => {
  const scratch = mkdtempSync(join(tmpdir(), "lc-k8s-schema-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("every document with an apiVersion and a kind, in every YAML file under examples/, validates against the Kubernetes schema", () => {
    const checked: Record<string, number> = {};
    const problems: string[] = [];
    for (const file of yamlFiles(EXAMPLES)) {
      const name = relative(EXAMPLES, file);
      const result = checkText(readFileSync(file, "utf8"), name);
      checked[name] = result.manifests;
      problems.push(...result.problems);
    }
    expect(problems).toEqual([]);
    // Every YAML file of the Kubernetes example holds manifests: none is skipped unseen.
    for (const file of yamlFiles(KUBERNETES)) expect(checked[relative(EXAMPLES, file)], file).toBeGreaterThan(0);
    expect(checked["kubernetes/vllm.yaml"]).toBe(2);
  });

  it("the shards' Job names the status of its pod condition pattern (required by the API servers the Job supports)", () => {
    const [job] = parseAllDocuments(readFileSync(join(KUBERNETES, "shards-job.yaml"), "utf8")).map((d) => d.toJS() as Doc);
    const conditions = (job!["spec"]["podFailurePolicy"]["rules"] as Doc[]).flatMap((rule) => (rule["onPodConditions"] ?? []) as Doc[]);
    expect(conditions).toEqual([{ type: "DisruptionTarget", status: "True" }]);
  });

  // Each planted mistake is a text edit of a real manifest, checked as a file would be.
  const planted: ReadonlyArray<{ what: string; file: string; find: string; replace: string; expected: RegExp }> = [
    {
      what: "the pod condition pattern loses its status",
      file: "shards-job.yaml",
      find: '            status: "True"\n',
      replace: "",
      expected: /onPodConditions\/0\/status must be one of/,
    },
    {
      what: "completions becomes a string",
      file: "shards-job.yaml",
      find: "  completions: 8\n",
      replace: '  completions: "8"\n',
      expected: /completions must be integer/,
    },
    {
      what: "a container loses its name",
      file: "shards-job.yaml",
      find: "        - name: ingest\n",
      replace: "        - ports: []\n",
      expected: /must have required property name/,
    },
    {
      what: "a pod failure rule loses its action",
      file: "shards-job.yaml",
      find: "      - action: FailIndex\n",
      replace: "      - onPodConditions: []\n",
      expected: /must have required property action/,
    },
    { what: "a Service port becomes text", file: "vllm.yaml", find: "    - port: 8000\n", replace: '    - port: "8000"\n', expected: /port must be integer/ },
    {
      what: "a Deployment loses its selector",
      file: "vllm.yaml",
      find: "  selector:\n    matchLabels:\n      app: little-canary-vllm\n",
      replace: "",
      expected: /must have required property selector/,
    },
    {
      what: "a probe's command becomes a string",
      file: "serve-sidecar.yaml",
      find: '              command: ["node", "-e"',
      replace: '              command: "node"\n              args: ["-e"',
      expected: /command must be array/,
    },
    {
      what: "an unknown kind",
      file: "volume.yaml",
      find: "kind: PersistentVolumeClaim\n",
      replace: "kind: PersistentVolumeClam\n",
      expected: /no validator for v1 PersistentVolumeClam/,
    },
  ];

  it.each(planted)("a planted mistake fails the check: $what", ({ file, find, replace, expected }) => {
    const text = readFileSync(join(KUBERNETES, file), "utf8");
    expect(text, `${file} no longer holds the text this mistake edits`).toContain(find);
    const copy = join(scratch, file);
    writeFileSync(copy, text.replace(find, replace));
    const result = checkText(readFileSync(copy, "utf8"), file);
    expect(result.problems.join("\n")).toMatch(expected);
  });

  it.skipIf(!hasKubectl())("with kubectl present: the kustomization builds, every object validates, and the ConfigMap holds every script", () => {
    const build = spawnSync(KUBECTL, ["kustomize", KUBERNETES], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
    expect(build.status, build.stderr).toBe(0);
    const result = checkText(build.stdout, "kubectl kustomize");
    expect(result.problems).toEqual([]);
    const docs = parseAllDocuments(build.stdout).map((d) => d.toJS() as Doc);
    expect(docs.map((d) => d["kind"]).sort()).toEqual(["ConfigMap", "Deployment", "Job", "PersistentVolumeClaim", "Service"]);
    const scripts = docs.find((d) => d["kind"] === "ConfigMap")!;
    expect(Object.keys(scripts["data"]).sort()).toEqual(["index-shards.sh", "shard-wrapper.sh", "wait-for-canary.sh"]);
  });
});
