// OpenClaw plugin entry: registers the prompt screen on `before_agent_run`. The hook budget
// (12 s) exceeds the longest screen this plugin allows (10 s), so OpenClaw never cuts it short.
import { createBeforeAgentRunHandler, HOOK_TIMEOUT_MS, PLUGIN_ID } from "./plugin.mjs";

export default {
  id: PLUGIN_ID,
  name: "Little Canary",
  description: "Screens the current prompt with the local Little Canary service before the agent run.",
  register(api) {
    api.on("before_agent_run", createBeforeAgentRunHandler({ config: api.pluginConfig, logger: api.logger }), { timeoutMs: HOOK_TIMEOUT_MS });
  },
};
