// OpenCode plugin entry. OpenCode calls every function this module exports as a plugin, so it
// exports exactly one; the hooks themselves live in plugin.mjs (and are tested there).
import { createOpenCodeHooks } from "./plugin.mjs";

export const LittleCanaryPlugin = async ({ client }) => createOpenCodeHooks({ client });
