// OpenCode plugin entry, bundled by scripts/build-integrations.ts into
// integrations/opencode/index.mjs. OpenCode calls every function this module exports as a
// plugin, so it exports exactly one; the hooks themselves live in plugin.ts (and are tested there).
import { createOpenCodeHooks, type OpenCodeHooks } from "./plugin.js";

/** The OpenCode plugin: OpenCode passes its client (used for toasts) and gets both hooks. */
export const LittleCanaryPlugin = async ({ client }: { client?: unknown }): Promise<OpenCodeHooks> => createOpenCodeHooks({ client });
