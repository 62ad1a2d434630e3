// The host capability matrix: what each agent host lets an adapter
// intercept and refuse, what this repository ships for it, and what stays out of reach. The
// checked-in docs/host-capability-matrix.json is validated against this schema (with the
// cross-field invariants below), and docs/integrations.md is rendered from it by
// renderIntegrationsDoc, so the table users read cannot disagree with the data.
import { z } from "zod";

const nonBlank = z.string().refine((s) => s.trim() !== "", "must not be blank");

/** What an inbound hook and a tool-result hook both record. */
const HOOK_FIELDS = {
  shipped: z.boolean(),
  event: nonBlank,
  interception_point: nonBlank,
  runtime_certified: z.boolean(),
  runtime_evidence: nonBlank,
};

const InboundSchema = z.strictObject({ ...HOOK_FIELDS, deny_channel: z.boolean(), deny_wire: nonBlank.nullable() });

const ToolResultSchema = z.strictObject({ ...HOOK_FIELDS, can_withhold_text: z.boolean() });

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

/** docs/host-capability-matrix.json: what each host lets an adapter intercept, with its cross-field rules. */
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

/** A validated host capability matrix. */
export type HostCapabilityMatrix = z.infer<typeof HostCapabilityMatrixSchema>;
/** One host's row of the matrix. */
export type HostCapability = HostCapabilityMatrix["hosts"][number];

const yes = (value: boolean): string => (value ? "yes" : "no");
const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (text: string | null): string => (text === null ? "—" : `\`${cell(text)}\``);

// How the plugin folders come to be and how a user installs them: one story, stated once here
// and rendered into docs/integrations.md (the host READMEs point to it).
const BUILD_AND_INSTALL: readonly string[] = [
  "## How the plugins are built and installed",
  "",
  "Every adapter is written once, in TypeScript, under `src/integrations/`: `classify.ts` (the one classifier),",
  "`adapter/` (loopback endpoint rules, the HTTP client, configuration, `/health` notices, the command-hook runner)",
  "and one folder per host. `scripts/build-integrations.ts` bundles each host entry into one self-contained ES module",
  "in the host's folder under `integrations/`:",
  "",
  "| Host | Entry | Bundle |",
  "|---|---|---|",
  "| Claude Code, Codex CLI | `src/integrations/claude-code/user-prompt-submit.ts` | `integrations/claude-code/hooks/user-prompt-submit.mjs` |",
  "| Gemini CLI | `src/integrations/gemini-cli/before-agent.ts` | `integrations/gemini-cli/hooks/before-agent.mjs` |",
  "| OpenCode | `src/integrations/opencode/entry.ts` | `integrations/opencode/index.mjs` |",
  "| Pi | `src/integrations/pi/entry.ts` | `integrations/pi/index.mjs` |",
  "| OpenClaw | `src/integrations/openclaw/entry.ts` | `integrations/openclaw/index.mjs` |",
  "",
  "A bundle imports nothing but `node:` builtins, so it runs with `node` (20.19+) alone: no `npm install`, no",
  "`node_modules`, no symlinks. The bundles are checked in, so a clone, a copied folder and the npm package all carry",
  "working plugins. `npm run integrations` rebuilds them after a change under `src/integrations/`; `npm run build`",
  "fails while a checked-in bundle is stale, and `test/integrations/build.test.ts` compares every bundle with a fresh",
  "build. Edit the TypeScript, never the `.mjs`.",
  "",
  "The Hermes Agent plugin is the one exception: Hermes loads Python, so `integrations/hermes-agent` is a Python",
  "directory plugin (`plugin.yaml`, `__init__.py`; standard library only, nothing to install or build) that calls",
  "the same loopback `POST /check` and classifies the verdict in the order of `classify.ts`; its README gives its",
  "settings and `test/integrations/hermes-agent.test.ts` runs its Python tests against a real `serve`.",
  "",
  "The bundler is Vite's (Rolldown), already a pinned development dependency: the sources import each other with",
  "`.js` specifiers that name `.ts` files, and a bundler resolves those, strips the types and inlines every module",
  "into one file in one call. Compiling with `tsc` and concatenating the output would mean rewriting import and",
  "export statements by hand. Vite is needed only to rebuild the bundles, never to run them.",
  "",
  "To install a plugin, point the host at its folder, either in a clone of the repository or in the installed npm",
  "package (`npm install little-canary`, then `node_modules/little-canary/integrations/<host>`). Host installers that",
  "copy the folder get a complete copy: every file in it is a plain file. Each host folder's README gives the host's",
  "own install command. Programs that wire a host themselves can import the same adapters from",
  "`little-canary/integrations`.",
];

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
    "wherever the host offers a refusal channel. An invalid value (a typo such as `dney`) is reported and counts as `deny`:",
    "a setting the user meant to make is never read as `allow`.",
    "Against a service started with `--token-file`, every adapter that calls it sends the token of the file named by",
    "`LITTLE_CANARY_TOKEN_FILE`; a missing token, another token (`401`) or an unusable file is reported as unscreened.",
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
    ...BUILD_AND_INSTALL,
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
