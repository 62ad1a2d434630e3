// Screening for the in-process plugins (OpenCode, Pi, OpenClaw): the configuration is checked
// once, when the plugin is created (config.ts order). A problem never throws inside the host:
// each screen reports it as `unscreened` (refused under `deny`) without any request.
import { unscreenedForHost } from "../classify.js";
import { UNAUTHORIZED } from "./client.js";
import { adapterConfig, ENDPOINT_ENV, HOOK_TIMEOUT_LIMITS, TIMEOUT_ENV, type AdapterConfig, type AdapterEnv } from "./config.js";
import { parseCheckEndpoint } from "./endpoint.js";
import { createScreener, type Screen } from "./screener.js";

/** The screen every hook call of a plugin uses, for its configuration (checked once, by adapterConfig). */
export function screenerFor(config: AdapterConfig, adapterName: string): Screen {
  if (config.ok) return createScreener({ ...config, adapterName });
  const failureMode = config.failureMode ?? "allow";
  return async () => ({ outcome: unscreenedForHost(config.problem, { failureMode }), notices: [] });
}

/** What a plugin configured as the command hooks are reads: the environment, a stderr for its warnings and a deadline. */
export interface HookPluginOptions {
  readonly env?: AdapterEnv;
  readonly stderr?: {
    /** Writes one warning line. */
    write(s: string): unknown;
  };
  readonly timeoutMs?: number;
}

/** Such a plugin's screen (LITTLE_CANARY_ENDPOINT, and `timeoutMs` or else LITTLE_CANARY_TIMEOUT_MS) and its stderr. */
export function createHookPluginScreener(
  options: HookPluginOptions,
  adapterName: string,
): { screen: Screen; stderr: NonNullable<HookPluginOptions["stderr"]> } {
  const env = options.env ?? process.env;
  const config = adapterConfig(env, parseCheckEndpoint(env[ENDPOINT_ENV]), options.timeoutMs ?? env[TIMEOUT_ENV], HOOK_TIMEOUT_LIMITS);
  return { screen: screenerFor(config, adapterName), stderr: options.stderr ?? process.stderr };
}

/**
 * Whether an unscreened reason is a configuration problem, which hosts name: a setting worded by
 * invalidConfiguration, or a 401 (the service's token and LITTLE_CANARY_TOKEN_FILE do not match).
 */
export function isConfigProblem(reason: unknown): reason is string {
  return (
    typeof reason === "string" && (reason.startsWith("invalid adapter configuration") || reason === UNAUTHORIZED.missing || reason === UNAUTHORIZED.refused)
  );
}
