// OpenClaw `before_agent_run` handler (cli-server-demo.md §5.5), built on the shared classifier:
// screens `event.prompt` only (never `event.messages`), answers `{outcome:"block", ...}` for an
// unsafe verdict and, under LITTLE_CANARY_FAILURE_MODE=deny, for a prompt that could not be
// screened; `{outcome:"pass"}` otherwise, with exactly one logger warning for anything short of
// a clean pass. `serviceUrl` must be a loopback origin (127.0.0.1, localhost or [::1]: the same
// rule as every other adapter). Warnings never contain error messages or prompt text.
import { parseServiceOrigin } from "./_shared/endpoint.mjs";
import { createPluginScreener } from "./_shared/plugin-screener.mjs";

export const PLUGIN_ID = "little-canary-openclaw";
export const HOOK_TIMEOUT_MS = 12000;
export const OPENCLAW_TIMEOUT_LIMITS = Object.freeze({ min: 100, max: 10000, fallback: 10000 });
export const PASS = Object.freeze({ outcome: "pass" });
export const BLOCK_UNSAFE = Object.freeze({
  outcome: "block",
  reason: "Little Canary returned an unsafe verdict.",
  message: "Little Canary blocked this run. Review the prompt and screening details before retrying.",
});
export const BLOCK_UNSCREENED = Object.freeze({
  outcome: "block",
  reason: "Little Canary screening did not complete.",
  message: "Little Canary blocked this run because screening did not complete and the fail-closed policy applies.",
});

const PREFIX = `[${PLUGIN_ID}] `;
const UNREADABLE = new Set(["ValueError", "JSONDecodeError", "verdict omitted required coverage fields"]);

/** The warning for an outcome (without prefix), or null when silent. */
export function warning(outcome) {
  const tail = outcome.block ? "blocking run (fail-closed policy)" : "allowing run";
  switch (outcome.decision) {
    case "allow":
    case "deny":
      return null;
    case "warn":
      return "screening flagged this prompt; allowing run";
    case "unscreened":
      if (outcome.cause === "incomplete") return `screening coverage is degraded; ${tail}`;
      if (typeof outcome.reason === "string" && outcome.reason.startsWith("invalid adapter configuration")) return `${outcome.reason}; ${tail}`;
      if (UNREADABLE.has(outcome.reason)) return `screening service returned an unreadable verdict; ${tail}`;
      if (outcome.reason === "HTTPError") return `screening service returned an HTTP error; ${tail}`;
      return `screening failed (${outcome.reason}); ${tail}`;
  }
  return null;
}

/**
 * @param {{ config?: { serviceUrl?: unknown, timeoutMs?: unknown }, env?: Record<string, string | undefined>, logger?: { warn(message: string): unknown } }} [options]
 * @returns {(event: any) => Promise<Record<string, string>>}
 */
export function createBeforeAgentRunHandler(options = {}) {
  const config = typeof options.config === "object" && options.config !== null ? options.config : {};
  const env = options.env ?? process.env;
  const logger = options.logger ?? { warn: (message) => process.stderr.write(`${message}\n`) };
  const { screen } = createPluginScreener({
    env,
    endpoint: parseServiceOrigin(config.serviceUrl),
    timeoutMs: config.timeoutMs,
    limits: OPENCLAW_TIMEOUT_LIMITS,
    adapterName: "this plugin",
  });

  function warn(message) {
    try {
      logger.warn(PREFIX + message);
    } catch {
      // A failing logger must not decide the run.
    }
  }

  return async function beforeAgentRun(event) {
    const prompt = event?.prompt;
    if (typeof prompt !== "string" || prompt === "") return PASS;
    const { outcome, notices } = await screen(prompt);
    const message = warning(outcome);
    if (message !== null) warn(message);
    for (const notice of notices) warn(notice);
    if (outcome.decision === "deny") return BLOCK_UNSAFE;
    return outcome.block ? BLOCK_UNSCREENED : PASS;
  };
}
