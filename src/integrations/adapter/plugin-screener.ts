// Screening for the in-process plugins (OpenCode, Pi, OpenClaw): the configuration is checked
// once, when the plugin is created (config.ts order). A problem never throws inside the host:
// each screen reports it as `unscreened` (refused under `deny`) without any request.
import { unscreenedForHost } from "../classify.js";
import { UNAUTHORIZED } from "./client.js";
import { adapterConfig, ENDPOINT_ENV, HOOK_TIMEOUT_LIMITS, TIMEOUT_ENV, type AdapterEnv, type TimeoutLimits } from "./config.js";
import { parseCheckEndpoint, type EndpointParse } from "./endpoint.js";
import { createScreener, type Screen } from "./screener.js";

/** What a plugin passes: its environment, its endpoint setting (validated), its timeout setting (raw). */
export interface PluginScreenerOptions {
  readonly env: AdapterEnv;
  readonly endpoint: EndpointParse;
  readonly timeoutMs: unknown;
  readonly limits: TimeoutLimits;
  readonly adapterName: string;
}

/** Checks the configuration once and returns the screen every hook call uses. */
export function createPluginScreener(options: PluginScreenerOptions): Screen {
  const config = adapterConfig(options.env, options.endpoint, options.timeoutMs, options.limits);
  if (config.ok) return createScreener({ ...config, adapterName: options.adapterName });
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
  const endpoint = parseCheckEndpoint(env[ENDPOINT_ENV]);
  const screen = createPluginScreener({ env, endpoint, timeoutMs: options.timeoutMs ?? env[TIMEOUT_ENV], limits: HOOK_TIMEOUT_LIMITS, adapterName });
  return { screen, stderr: options.stderr ?? process.stderr };
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
