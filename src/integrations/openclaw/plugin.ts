// OpenClaw `before_agent_run` handler, built on the shared classifier: screens `event.prompt` only
// (never `event.messages`), answers `{outcome:"block", ...}` for an unsafe verdict and, under
// LITTLE_CANARY_FAILURE_MODE=deny, for a prompt that could not be screened; otherwise
// `{outcome:"pass"}` with one logger warning (never error messages or prompt text) for anything
// short of a clean pass; a flagged verdict whose canary did not run is named as flagged. A prompt
// with nothing to screen (empty, missing, or Unicode whitespace alone, which the service would
// refuse) passes without a request. `serviceUrl` must be a loopback origin, as for every adapter.
import { isBlankText } from "../../core/codepoints.js";
import type { HostClassification } from "../classify.js";
import { adapterConfig, parseServiceOrigin, type AdapterEnv, type TimeoutLimits } from "../adapter/config.js";
import { isConfigProblem, screenerFor, unscreenedFor } from "../adapter/screener.js";

/** The plugin id in openclaw.plugin.json (and the prefix of every warning). */
export const PLUGIN_ID = "little-canary-openclaw";
/** The budget this plugin asks OpenClaw for; above the longest screen it allows. */
export const HOOK_TIMEOUT_MS = 12000;
/** `timeoutMs` bounds: 100–10000 ms, default 10000. */
const OPENCLAW_TIMEOUT_LIMITS: TimeoutLimits = Object.freeze({ min: 100, max: 10000, fallback: 10000 });

/** What the handler returns to OpenClaw. */
export type OpenClawResult = { readonly outcome: "pass" } | { readonly outcome: "block"; readonly reason: string; readonly message: string };

/** The run goes on. */
const PASS: OpenClawResult = Object.freeze({ outcome: "pass" });
/** The run is refused: the service answered unsafe. */
export const BLOCK_UNSAFE: OpenClawResult = Object.freeze({
  outcome: "block",
  reason: "Little Canary returned an unsafe verdict.",
  message: "Little Canary blocked this run. Review the prompt and screening details before retrying.",
});
/** The run is refused: screening did not complete under the `deny` failure mode. */
export const BLOCK_UNSCREENED: OpenClawResult = Object.freeze({
  outcome: "block",
  reason: "Little Canary screening did not complete.",
  message: "Little Canary blocked this run because screening did not complete and the fail-closed policy applies.",
});

/** The run is refused: the service flagged the prompt, and under the `deny` failure mode its incomplete coverage refuses it. */
export const BLOCK_FLAGGED_UNSCREENED: OpenClawResult = Object.freeze({
  outcome: "block",
  reason: "Little Canary flagged this prompt; screening did not complete.",
  message: "Little Canary blocked this run: it flagged the prompt, and the fail-closed policy applies because screening did not complete.",
});

const PREFIX = `[${PLUGIN_ID}] `;
const UNREADABLE = new Set<string | null>(["ValueError", "JSONDecodeError", "verdict omitted required coverage fields"]);

/** The warning for an outcome (without prefix), or null when silent. */
function warning(outcome: HostClassification): string | null {
  const tail = outcome.block ? "blocking run (fail-closed policy)" : "allowing run";
  switch (outcome.decision) {
    case "allow":
    case "deny":
      return null;
    case "warn":
      return "screening flagged this prompt; allowing run";
    case "unscreened":
      if (outcome.flagged) return `screening flagged this prompt; ${outcome.reason}; ${tail}`;
      if (outcome.cause === "incomplete") return `screening coverage is degraded; ${tail}`;
      if (isConfigProblem(outcome.reason)) return `${outcome.reason}; ${tail}`;
      if (UNREADABLE.has(outcome.reason)) return `screening service returned an unreadable verdict; ${tail}`;
      if (outcome.reason === "HTTPError") return `screening service returned an HTTP error; ${tail}`;
      return `screening failed (${outcome.reason}); ${tail}`;
  }
}

/** The plugin's configuration (`serviceUrl`, `timeoutMs`, as OpenClaw passes it) and its logger. */
export interface OpenClawHandlerOptions {
  readonly config?: unknown;
  readonly env?: AdapterEnv;
  readonly logger?: {
    /** Logs one warning. */
    warn(message: string): unknown;
  };
}

/** OpenClaw's `before_agent_run` handler. */
export type BeforeAgentRunHandler = (event: unknown) => Promise<OpenClawResult>;

/** Builds the handler; the configuration is checked once, here. */
export function createBeforeAgentRunHandler(options: OpenClawHandlerOptions = {}): BeforeAgentRunHandler {
  const config = (typeof options.config === "object" && options.config !== null ? options.config : {}) as Record<string, unknown>;
  const env = options.env ?? process.env;
  const logger = options.logger ?? { warn: (message: string) => process.stderr.write(`${message}\n`) };
  const settings = adapterConfig(env, parseServiceOrigin(config["serviceUrl"]), config["timeoutMs"], OPENCLAW_TIMEOUT_LIMITS);
  const screen = screenerFor(settings, "this plugin");
  const unscreened = unscreenedFor(settings);

  function warn(message: string): void {
    try {
      logger.warn(PREFIX + message);
    } catch {
      // A failing logger must not decide the run.
    }
  }

  return async function beforeAgentRun(event: unknown): Promise<OpenClawResult> {
    const prompt = (event as { prompt?: unknown } | null | undefined)?.prompt;
    // No prompt is nothing to screen; a prompt of another shape cannot be screened, so it is unscreened.
    if (prompt === undefined || prompt === null || (typeof prompt === "string" && isBlankText(prompt))) return PASS;
    const { outcome, notices } = typeof prompt === "string" ? await screen(prompt) : unscreened("prompt was not a string");
    const message = warning(outcome);
    if (message !== null) warn(message);
    for (const notice of notices) warn(notice);
    if (outcome.decision === "deny") return BLOCK_UNSAFE;
    if (!outcome.block) return PASS;
    return outcome.flagged ? BLOCK_FLAGGED_UNSCREENED : BLOCK_UNSCREENED;
  };
}
