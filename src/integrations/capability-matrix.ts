// The host capability matrix (cli-server-demo.md §5.7): what each agent host lets an adapter
// intercept and refuse, what this repository ships for it, and what stays out of reach. The
// checked-in docs/host-capability-matrix.json is validated against this schema (with the
// cross-field invariants of §5.7), and docs/integrations.md is rendered from it by
// renderIntegrationsDoc, so the table users read cannot disagree with the data.
import { z } from "zod";

const nonBlank = z.string().refine((s) => s.trim() !== "", "must not be blank");

const InboundSchema = z.strictObject({
  shipped: z.boolean(),
  event: nonBlank,
  interception_point: nonBlank,
  deny_channel: z.boolean(),
  deny_wire: nonBlank.nullable(),
  runtime_certified: z.boolean(),
  runtime_evidence: nonBlank,
});

const ToolResultSchema = z.strictObject({
  shipped: z.boolean(),
  event: nonBlank,
  interception_point: nonBlank,
  can_withhold_text: z.boolean(),
  runtime_certified: z.boolean(),
  runtime_evidence: nonBlank,
});

const OutboundSchema = z.strictObject({
  host_deny_channel: z.boolean(),
  host_event: nonBlank.nullable(),
  shipped: z.boolean(),
});

const HostSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  name: nonBlank,
  observed_version: nonBlank.nullable(),
  shipped_artifact: nonBlank.nullable(),
  doc_anchor: z.string().regex(/^### \S/),
  inbound: InboundSchema,
  tool_result: ToolResultSchema.optional(),
  outbound_tool_execution: OutboundSchema,
  caveats: z.array(nonBlank).min(1),
});

export const HostCapabilityMatrixSchema = z
  .strictObject({
    schema: z.literal("little-canary-host-capability-matrix/v1"),
    little_canary_version: nonBlank,
    certified_on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    note: nonBlank,
    hosts: z.array(HostSchema).min(1),
  })
  .superRefine((matrix, ctx) => {
    const ids = new Set<string>();
    matrix.hosts.forEach((host, i) => {
      const at = (message: string): void => ctx.addIssue({ code: "custom", path: ["hosts", i], message: `${host.id}: ${message}` });
      if (ids.has(host.id)) at("duplicate id");
      ids.add(host.id);
      for (const part of [host.inbound, host.tool_result]) {
        if (part?.runtime_certified && !part.shipped) at("runtime_certified requires shipped");
      }
      const shipsSomething = host.inbound.shipped || host.outbound_tool_execution.shipped;
      if ((host.shipped_artifact !== null) !== shipsSomething) at("shipped_artifact must be set exactly when something is shipped");
      if ((host.inbound.deny_wire !== null) !== host.inbound.deny_channel) at("deny_wire must be set exactly when deny_channel is true");
      if (host.outbound_tool_execution.shipped && host.id !== "hermes-agent") at("only hermes-agent may ship outbound screening");
      if (host.id === "github-copilot" && (shipsSomething || host.shipped_artifact !== null || host.inbound.deny_channel)) {
        at("github-copilot has no prompt-deny channel and nothing shipped");
      }
    });
  });

export type HostCapabilityMatrix = z.infer<typeof HostCapabilityMatrixSchema>;
export type HostCapability = HostCapabilityMatrix["hosts"][number];

const yes = (value: boolean): string => (value ? "yes" : "no");
const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (text: string | null): string => (text === null ? "—" : `\`${cell(text)}\``);

/** docs/integrations.md, generated from the matrix (deterministic: same matrix, same bytes). */
export function renderIntegrationsDoc(matrix: HostCapabilityMatrix): string {
  const lines: string[] = [
    "# Host integrations",
    "",
    "<!-- Generated from docs/host-capability-matrix.json by scripts/generate-integrations-doc.ts; do not edit by hand. -->",
    "",
    `Matrix \`${matrix.schema}\` for little-canary ${matrix.little_canary_version}, reviewed on ${matrix.certified_on}.`,
    "",
    matrix.note,
    "",
    "Every shipped adapter uses one classifier (`classifyForHost`): **allow** (exercised and clean), **warn** (flagged),",
    "**deny** (unsafe) or **unscreened** (the service was unreachable, the verdict was incomplete, or coverage did not run).",
    "`LITTLE_CANARY_FAILURE_MODE=allow` (default) lets unscreened input through with a visible warning; `deny` refuses it",
    "wherever the host offers a refusal channel. An invalid value is reported, never read as `allow`.",
    "",
    "## What each host lets an adapter see and stop",
    "",
    "| Host | Shipped | Inbound event | Can refuse the prompt | Deny wire | Tool results | Outbound tool calls | Runtime-certified |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const host of matrix.hosts) {
    const tool = host.tool_result
      ? `${host.tool_result.shipped ? "screened" : "not shipped"} (\`${cell(host.tool_result.event)}\`${host.tool_result.can_withhold_text ? ", can withhold text" : ""})`
      : "not screened";
    const outbound = host.outbound_tool_execution.shipped
      ? `screened (\`${cell(host.outbound_tool_execution.host_event ?? "")}\`)`
      : host.outbound_tool_execution.host_deny_channel
        ? "host can deny; not shipped"
        : "no";
    lines.push(
      `| ${cell(host.name)} | ${yes(host.inbound.shipped)} | \`${cell(host.inbound.event)}\` | ${yes(host.inbound.deny_channel)} | ${code(host.inbound.deny_wire)} | ${tool} | ${outbound} | ${yes(host.inbound.runtime_certified)} |`,
    );
  }
  lines.push(
    "",
    "No adapter screens conversation history, files read later, images or (except OpenCode's tool-result hook) tool output.",
    "Screen those yourself with the library or `POST /check` before an authority-bearing agent reads them.",
    "",
    "## Hosts",
  );
  for (const host of matrix.hosts) {
    lines.push("", host.doc_anchor, "");
    lines.push(`- Artifact: ${host.shipped_artifact === null ? "none shipped" : `\`${host.shipped_artifact}\``}`);
    lines.push(`- Observed host version: ${host.observed_version ?? "not observed"}`);
    lines.push(`- Interception: ${host.inbound.interception_point}`);
    lines.push(`- Runtime evidence: ${host.inbound.runtime_evidence}`);
    if (host.tool_result) lines.push(`- Tool results: ${host.tool_result.interception_point} (${host.tool_result.runtime_evidence})`);
    lines.push("- Caveats:");
    for (const caveat of host.caveats) lines.push(`  - ${caveat}`);
  }
  lines.push("");
  return lines.join("\n");
}
