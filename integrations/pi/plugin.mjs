// Pi `input` handler (cli-server-demo.md §5.4), built on the shared classifier. Returns
// `{action:"handled"}` (Pi does not start the turn) for an unsafe verdict and, under
// LITTLE_CANARY_FAILURE_MODE=deny, for input that could not be screened; `{action:"continue"}`
// otherwise, with a notification for anything short of a clean pass. The endpoint and the rest
// of the configuration are read once, when the handler is created. Notifications go to
// `ctx.ui.notify` when Pi has a UI, else to stderr; they never contain the input text.
import { parseCheckEndpoint } from "./_shared/endpoint.mjs";
import { HOOK_TIMEOUT_LIMITS } from "./_shared/config.mjs";
import { createPluginScreener } from "./_shared/plugin-screener.mjs";

export const CONTINUE = Object.freeze({ action: "continue" });
export const HANDLED = Object.freeze({ action: "handled" });

/** The notification for an outcome: [message, level], or null when silent. */
export function notification(outcome) {
  switch (outcome.decision) {
    case "allow":
      return null;
    case "deny":
      return ["Little Canary blocked this input before Pi started the turn.", "error"];
    case "warn":
      return ["Little Canary flagged this input; Pi continued.", "warning"];
    case "unscreened": {
      const what =
        outcome.cause === "incomplete"
          ? "Little Canary coverage is incomplete"
          : typeof outcome.reason === "string" && outcome.reason.startsWith("invalid adapter configuration")
            ? `Little Canary screening unavailable: ${outcome.reason}`
            : "Little Canary screening unavailable";
      return outcome.block ? [`${what}; Pi stopped this input under the fail-closed policy.`, "error"] : [`${what}; Pi continued.`, "warning"];
    }
  }
  return null;
}

/**
 * @param {{ env?: Record<string, string | undefined>, stderr?: { write(s: string): unknown }, timeoutMs?: number }} [options]
 * @returns {(event: any, ctx: any) => Promise<{ action: "continue" | "handled" }>}
 */
export function createInputHandler(options = {}) {
  const env = options.env ?? process.env;
  const stderr = options.stderr ?? process.stderr;
  const { screen } = createPluginScreener({
    env,
    endpoint: parseCheckEndpoint(env.LITTLE_CANARY_ENDPOINT),
    timeoutMs: options.timeoutMs ?? env.LITTLE_CANARY_TIMEOUT_MS,
    limits: HOOK_TIMEOUT_LIMITS,
    adapterName: "this extension",
  });

  function notify(ctx, message, level) {
    try {
      if (ctx?.hasUI && typeof ctx.ui?.notify === "function") ctx.ui.notify(message, level);
      else stderr.write(`Little Canary: ${message}\n`);
    } catch {
      // A failing notifier must not decide the turn.
    }
  }

  return async function onInput(event, ctx) {
    const text = event?.text;
    if (typeof text !== "string" || text === "") return CONTINUE;
    const { outcome, notices } = await screen(text);
    const note = notification(outcome);
    if (note !== null) notify(ctx, note[0], note[1]);
    for (const notice of notices) notify(ctx, notice, "warning");
    return outcome.block ? HANDLED : CONTINUE;
  };
}
