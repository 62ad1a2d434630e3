// The image recipe the Kubernetes example refers to, read as text: no Docker daemon runs in the
// tests (nor on the machines that wrote them), so this holds what can be held without building:
// two stages; the runtime stage on a slim Node base gets only the package as `npm pack` ships it,
// with `npm ci --omit=dev`; it runs as a non-root uid (numeric, so runAsNonRoot can check it);
// the CLI is the entrypoint and on the PATH for the manifests' `command`; .dockerignore keeps
// installed and built trees and VCS data out of the build context.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; bin: Record<string, string>; engines: { node: string } };

interface Instruction {
  readonly op: string;
  readonly args: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments dropped), split into stages. */
function stages(): Instruction[][] {
  const text = readFileSync(join(ROOT, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
  const result: Instruction[][] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const [op = "", ...rest] = trimmed.split(/\s+/);
    const instruction = { op: op.toUpperCase(), args: rest.join(" ") };
    if (instruction.op === "FROM") result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

const args = (stage: Instruction[], op: string): string[] => stage.filter((i) => i.op === op).map((i) => i.args);

describe("Dockerfile", () => {
  it("builds in one stage and runs from a slim Node base with only the packed package and its runtime dependencies", () => {
    const all = stages();
    expect(all.length).toBe(2);
    const [build, runtime] = all as [Instruction[], Instruction[]];
    expect(args(build, "FROM")[0]).toMatch(/^node:\$\{NODE_VERSION\}-bookworm AS build$/);
    expect(args(runtime, "FROM")[0]).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim$/);
    // The default Node satisfies engines (>=20.19; node:20 is the newest 20.x).
    const nodeVersion = readFileSync(join(ROOT, "Dockerfile"), "utf8").match(/^ARG NODE_VERSION=(\d+)$/m)?.[1];
    expect(Number(nodeVersion)).toBeGreaterThanOrEqual(Number(PKG.engines.node.match(/\d+/)?.[0]));

    const buildRuns = args(build, "RUN").join("\n");
    // What reaches /app is the unpacked `npm pack` tarball (package.json "files"), then the
    // production dependencies at the lockfile's versions.
    expect(buildRuns).toMatch(/npm pack --pack-destination \/tmp/);
    expect(buildRuns).toMatch(new RegExp(`tar -xzf /tmp/${PKG.name}-\\*\\.tgz -C /app --strip-components=1`));
    expect(buildRuns).toMatch(/npm ci --omit=dev/);

    // The runtime stage copies nothing from the build context: only /app from the build stage.
    expect(args(runtime, "COPY")).toEqual(["--from=build /app /app"]);
    expect(args(runtime, "ADD")).toEqual([]);
    expect(args(runtime, "RUN").join("\n")).not.toMatch(/npm (ci|install)/);
  });

  it("runs as a non-root numeric user, with the CLI as its entrypoint and on the PATH", () => {
    const runtime = stages().at(-1)!;
    const users = args(runtime, "USER");
    expect(users.length).toBe(1);
    const [uid, gid] = users[0]!.split(":").map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    // USER comes after every RUN, so nothing later runs as root.
    const ops = runtime.map((i) => i.op);
    expect(ops.lastIndexOf("RUN")).toBeLessThan(ops.indexOf("USER"));

    const bin = PKG.bin["little-canary"];
    expect(bin).toBe("dist/cli/main.js");
    expect(args(runtime, "RUN").join("\n")).toContain(`ln -s /app/${bin} /usr/local/bin/little-canary`);
    expect(args(runtime, "ENTRYPOINT")).toEqual(['["little-canary"]']);
    expect(args(runtime, "ENV")).toContain("NODE_ENV=production");
  });

  it(".dockerignore keeps installed and built trees, VCS data and local secrets out of the build context", () => {
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    for (const entry of [".git", "node_modules", "dist", "*.tgz", ".env", ".npmrc"]) expect(ignored).toContain(entry);
  });

  it("the Kubernetes example's images are the ones this Dockerfile builds", () => {
    for (const file of ["shards-job.yaml", "index-job.yaml", "loader.yaml", "serve-sidecar.yaml"]) {
      const text = readFileSync(join(ROOT, "examples/kubernetes", file), "utf8");
      expect(text, file).toContain("image: REPLACE_WITH_YOUR_IMAGE");
      expect(text, file).toMatch(/Dockerfile/);
    }
    expect(readFileSync(join(ROOT, "docs/shards.md"), "utf8")).toContain("docker build -t");
  });
});
