// Types for plugin.mjs (OpenClaw before_agent_run handler).
export declare const PLUGIN_ID: "little-canary-openclaw";
export declare const HOOK_TIMEOUT_MS: number;
export declare const PASS: { readonly outcome: "pass" };
export declare const BLOCK_UNSAFE: { readonly outcome: "block"; readonly reason: string; readonly message: string };
export declare const BLOCK_UNSCREENED: { readonly outcome: "block"; readonly reason: string; readonly message: string };
export declare function createBeforeAgentRunHandler(options?: {
  config?: { serviceUrl?: unknown; timeoutMs?: unknown };
  env?: Record<string, string | undefined>;
  logger?: { warn(message: string): unknown };
}): (event: any) => Promise<Record<string, string>>;
