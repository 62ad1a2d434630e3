// Screening for the in-process plugins (OpenCode, Pi, OpenClaw): configuration is checked once,
// when the plugin is created, in the §5.1 order (failure mode, endpoint, timeout), and every
// screen then yields one classified outcome. A configuration problem does not throw inside the
// host: each screen reports it as `unscreened` (refused under `deny`) without any request. An
// invalid failure mode is reported in fail-open style, never silently read as allow.
import { unscreenedForHost, parseFailureMode, FAILURE_MODE_ENV } from "./classify.mjs";
import { invalidConfiguration, parseTimeoutMs } from "./config.mjs";
import { createScreener } from "./screener.mjs";

/**
 * @param {{
 *   env: Record<string, string | undefined>,
 *   endpoint: { ok: true, endpoint: import("./endpoint.mjs").ServiceEndpoint } | { ok: false, error: string },
 *   timeoutMs: unknown,
 *   limits: { min: number, max: number, fallback: number },
 *   adapterName: string,
 * }} options
 * @returns {{ failureMode: "allow" | "deny", problem: string | null, timeoutMs: number | null, screen: (text: string) => Promise<{ outcome: any, notices: string[] }> }}
 */
export function createPluginScreener(options) {
  const mode = parseFailureMode(options.env[FAILURE_MODE_ENV]);
  let problem = null;
  let failureMode = "allow";
  let timeoutMs = null;
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
    return {
      failureMode,
      problem: reason,
      timeoutMs,
      screen: async () => ({ outcome: unscreenedForHost(reason, { failureMode }), notices: [] }),
    };
  }
  const screen = createScreener({ endpoint: options.endpoint.endpoint, timeoutMs, failureMode, adapterName: options.adapterName });
  return { failureMode, problem: null, timeoutMs, screen };
}
