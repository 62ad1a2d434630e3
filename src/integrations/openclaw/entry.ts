// OpenClaw plugin entry, bundled by scripts/build-integrations.ts into
// integrations/openclaw/index.mjs: registers the prompt screen on `before_agent_run`. The hook
// budget (12 s) exceeds the longest screen this plugin allows (10 s), so OpenClaw never cuts it short.
import { createBeforeAgentRunHandler, HOOK_TIMEOUT_MS, PLUGIN_ID } from "./plugin.js";

/** OpenClaw's plugin API, as far as this plugin uses it. */
export interface OpenClawPluginApi {
  readonly pluginConfig?: unknown;
  readonly logger?: { warn(message: string): unknown };
  on(event: string, handler: unknown, options: unknown): unknown;
}

/** The OpenClaw plugin object (its id matches openclaw.plugin.json). */
const plugin = {
  id: PLUGIN_ID,
  name: "Little Canary",
  description: "Screens the current prompt with the local Little Canary service before the agent run.",
  register(api: OpenClawPluginApi): void {
    api.on("before_agent_run", createBeforeAgentRunHandler({ config: api.pluginConfig, logger: api.logger }), { timeoutMs: HOOK_TIMEOUT_MS });
  },
};
export default plugin;
