// Screening for the in-process plugins (OpenCode, Pi, OpenClaw): configuration is checked once,
// when the plugin is created, in a fixed order (failure mode, endpoint, timeout), and every
// screen then yields one classified outcome. A configuration problem does not throw inside the
// host: each screen reports it as `unscreened` (refused under `deny`) without any request. An
// invalid failure mode is reported in fail-open style, never silently read as allow.
import { FAILURE_MODE_ENV, parseFailureMode, unscreenedForHost, type FailureMode } from "../classify.js";
import { invalidConfiguration, parseTimeoutMs, type AdapterEnv, type TimeoutLimits } from "./config.js";
import type { EndpointParse } from "./endpoint.js";
import { createScreener, type Screen } from "./screener.js";

/** What a plugin passes: its environment, its endpoint setting (validated), its timeout setting (raw). */
export interface PluginScreenerOptions {
  readonly env: AdapterEnv;
  readonly endpoint: EndpointParse;
  readonly timeoutMs: unknown;
  readonly limits: TimeoutLimits;
  readonly adapterName: string;
}

/** A plugin's screen, with the configuration it was built from (problem null when valid). */
export interface PluginScreener {
  readonly failureMode: FailureMode;
  readonly problem: string | null;
  readonly timeoutMs: number | null;
  readonly screen: Screen;
}

/** Checks the configuration once and returns the screen every hook call uses. */
export function createPluginScreener(options: PluginScreenerOptions): PluginScreener {
  const mode = parseFailureMode(options.env[FAILURE_MODE_ENV]);
  let problem: string | null = null;
  let failureMode: FailureMode = "allow";
  let timeoutMs: number | null = null;
  if (!mode.ok) problem = invalidConfiguration(mode.error);
  else {
    failureMode = mode.mode;
    const timeout = parseTimeoutMs(options.timeoutMs, options.limits);
    if (!options.endpoint.ok) problem = invalidConfiguration(options.endpoint.error);
    else if (!timeout.ok) problem = invalidConfiguration(timeout.error);
    else timeoutMs = timeout.timeoutMs;
  }
  if (problem !== null || !options.endpoint.ok || timeoutMs === null) {
    const reason = problem ?? invalidConfiguration("unknown");
    const mode = failureMode;
    return {
      failureMode,
      problem: reason,
      timeoutMs,
      screen: async () => ({ outcome: unscreenedForHost(reason, { failureMode: mode }), notices: [] }),
    };
  }
  const screen = createScreener({ endpoint: options.endpoint.endpoint, timeoutMs, failureMode, adapterName: options.adapterName });
  return { failureMode, problem: null, timeoutMs, screen };
}
