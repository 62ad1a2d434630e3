// docs/host-capability-matrix.json: valid against its schema and
// invariants, consistent with what the repository ships, and docs/integrations.md is exactly
// what the generator renders from it.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { HostCapabilityMatrixSchema, renderIntegrationsDoc, type HostCapabilityMatrix } from "../../src/integrations/capability-matrix.js";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (path: string): string => readFileSync(resolve(ROOT, path), "utf8");
const raw = JSON.parse(read("docs/host-capability-matrix.json")) as unknown;
const matrix = HostCapabilityMatrixSchema.parse(raw);

describe("the checked-in matrix", () => {
  it("names the package version", () => {
    expect(matrix.little_canary_version).toBe((JSON.parse(read("package.json")) as { version: string }).version);
  });

  it("lists every shipped artifact and only existing ones", () => {
    for (const host of matrix.hosts) {
      if (host.shipped_artifact !== null) expect(existsSync(resolve(ROOT, host.shipped_artifact)), host.id).toBe(true);
    }
  });

  it("command-hook rows register their event in their manifest", () => {
    const claude = read("integrations/claude-code/hooks/hooks.json");
    const gemini = read("integrations/gemini-cli/hooks/hooks.json");
    const byId = new Map(matrix.hosts.map((h) => [h.id, h]));
    expect(Object.keys((JSON.parse(claude) as { hooks: object }).hooks)).toEqual([byId.get("claude-code")!.inbound.event]);
    expect(byId.get("codex-cli")!.shipped_artifact).toBe(byId.get("claude-code")!.shipped_artifact);
    expect(Object.keys((JSON.parse(gemini) as { hooks: object }).hooks)).toEqual([byId.get("gemini-cli")!.inbound.event]);
  });

  it("claims no runtime certification that this port has not earned", () => {
    expect(matrix.hosts.filter((h) => h.inbound.runtime_certified || h.tool_result?.runtime_certified)).toEqual([]);
  });

  it("docs/integrations.md is the generator's output and carries every host's anchor", () => {
    const doc = read("docs/integrations.md");
    expect(doc).toBe(renderIntegrationsDoc(matrix));
    for (const host of matrix.hosts) expect(doc.split("\n")).toContain(host.doc_anchor);
  });
});

describe("the schema's invariants refuse a broken matrix", () => {
  const clone = (): HostCapabilityMatrix => JSON.parse(JSON.stringify(raw)) as HostCapabilityMatrix;
  const refused = (edit: (m: HostCapabilityMatrix) => void): boolean => {
    const m = clone();
    edit(m);
    return !HostCapabilityMatrixSchema.safeParse(m).success;
  };
  const host = (m: HostCapabilityMatrix, id: string) => m.hosts.find((h) => h.id === id)!;

  it.each([
    ["a duplicate id", (m: HostCapabilityMatrix) => void m.hosts.push(m.hosts[0]!)],
    [
      // Its tool-call screening still ships, so only the certification rule is broken.
      "certified but not shipped",
      (m: HostCapabilityMatrix) => {
        host(m, "hermes-agent").inbound.shipped = false;
        host(m, "hermes-agent").inbound.runtime_certified = true;
      },
    ],
    ["a deny wire without a deny channel", (m: HostCapabilityMatrix) => void (host(m, "opencode").inbound.deny_wire = "{}")],
    ["a deny channel without a wire", (m: HostCapabilityMatrix) => void (host(m, "pi").inbound.deny_wire = null)],
    [
      "an artifact for nothing shipped",
      (m: HostCapabilityMatrix) => {
        host(m, "hermes-agent").inbound.shipped = false;
        host(m, "hermes-agent").outbound_tool_execution.shipped = false;
      },
    ],
    ["outbound shipped outside hermes-agent", (m: HostCapabilityMatrix) => void (host(m, "claude-code").outbound_tool_execution.shipped = true)],
    [
      "a Copilot deny channel",
      (m: HostCapabilityMatrix) => {
        host(m, "github-copilot").inbound.deny_channel = true;
        host(m, "github-copilot").inbound.deny_wire = "{}";
      },
    ],
    ["empty caveats", (m: HostCapabilityMatrix) => void (host(m, "pi").caveats = [])],
    ["a blank evidence text", (m: HostCapabilityMatrix) => void (host(m, "pi").inbound.runtime_evidence = "  ")],
    ["a string boolean", (m: HostCapabilityMatrix) => void ((host(m, "pi").inbound as { shipped: unknown }).shipped = "true")],
  ])("%s", (_label, edit) => {
    expect(refused(edit)).toBe(true);
  });
});
