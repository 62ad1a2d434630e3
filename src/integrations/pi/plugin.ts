// Pi `input` handler, built on the shared classifier: `{action:"handled"}` (Pi does not start the
// turn) for an unsafe verdict and, under LITTLE_CANARY_FAILURE_MODE=deny, for input that could not
// be screened; otherwise `{action:"continue"}`, with a notification (`ctx.ui.notify`, else stderr,
// never the input text) for anything short of a clean pass. A flagged verdict whose canary did not
// run is named as flagged, then as incomplete. Input with nothing to screen (empty, missing, or
// Unicode whitespace alone, which the service would refuse) continues silently without a request.
// Configuration is read once.
import { isBlankText } from "../../core/codepoints.js";
import type { HostClassification } from "../classify.js";
import { detectionLead } from "../adapter/detection-lead.js";
import { createHookPluginScreener, isConfigProblem, type HookPluginOptions } from "../adapter/screener.js";

/** What a Pi input handler returns. */
export type PiAction = { readonly action: "continue" } | { readonly action: "handled" };

/** Pi goes on with the turn. */
const CONTINUE: PiAction = Object.freeze({ action: "continue" });
/** Pi does not start the turn. */
const HANDLED: PiAction = Object.freeze({ action: "handled" });

/** A notification level Pi's `ctx.ui.notify` understands. */
type PiLevel = "error" | "warning";

/** The notification for an outcome: [message, level], or null when silent. */
function notification(outcome: HostClassification): [string, PiLevel] | null {
  switch (outcome.decision) {
    case "allow":
      return null;
    case "deny":
      return ["Little Canary blocked this input before Pi started the turn.", "error"];
    case "warn":
      return ["Little Canary flagged this input; Pi continued.", "warning"];
    case "unscreened": {
      const what =
        detectionLead(outcome, "input") ??
        (outcome.cause === "incomplete"
          ? "Little Canary coverage is incomplete"
          : isConfigProblem(outcome.reason)
            ? `Little Canary screening unavailable: ${outcome.reason}`
            : "Little Canary screening unavailable");
      return outcome.block ? [`${what}; Pi stopped this input under the fail-closed policy.`, "error"] : [`${what}; Pi continued.`, "warning"];
    }
  }
}

/** What the handler reads: the environment, a stderr (when Pi has no UI) and a deadline. */
export type PiHandlerOptions = HookPluginOptions;

/** Pi's handler context, as far as this handler uses it. */
interface PiContext {
  hasUI?: boolean;
  ui?: { notify?: (message: string, level: PiLevel) => unknown };
}

/** Pi's `input` handler: `(event, ctx) => {action}`. */
export type PiInputHandler = (event: unknown, ctx: unknown) => Promise<PiAction>;

/** Builds the `input` handler; the configuration is checked once, here. */
export function createInputHandler(options: PiHandlerOptions = {}): PiInputHandler {
  const { screen, unscreened, stderr } = createHookPluginScreener(options, "this extension");

  function notify(ctx: PiContext | undefined, message: string, level: PiLevel): void {
    try {
      if (ctx?.hasUI && typeof ctx.ui?.notify === "function") ctx.ui.notify(message, level);
      else stderr.write(`Little Canary: ${message}\n`);
    } catch {
      // A failing notifier must not decide the turn.
    }
  }

  return async function onInput(event: unknown, ctx: unknown): Promise<PiAction> {
    const text = (event as { text?: unknown } | null | undefined)?.text;
    // No text is nothing to screen; text of another shape cannot be screened, so it is unscreened.
    if (text === undefined || text === null || (typeof text === "string" && isBlankText(text))) return CONTINUE;
    const context = ctx as PiContext | undefined;
    const { outcome, notices } = typeof text === "string" ? await screen(text) : unscreened("prompt was not a string");
    const note = notification(outcome);
    if (note !== null) notify(context, note[0], note[1]);
    for (const notice of notices) notify(context, notice, "warning");
    return outcome.block ? HANDLED : CONTINUE;
  };
}
