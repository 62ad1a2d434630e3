// OpenCode hooks, built on the shared classifier. `chat.message` cannot reject a message, so it
// never changes it: anything short of a clean pass is a warning (TUI toast and stderr), which
// under LITTLE_CANARY_FAILURE_MODE=deny says the policy could not be applied. `tool.execute.after`
// replaces the tool's text by a withheld notice on `deny`, and on `unscreened` under `deny`,
// before the model reads it (resource URIs and images are kept). A flagged verdict whose canary did
// not run is named as flagged. Text with nothing to screen (empty or Unicode whitespace alone,
// which the service would refuse) is not sent. Messages never hold the text.
import { isBlankText } from "../../core/codepoints.js";
import { isPlainObject } from "../../core/guards.js";
import type { HostClassification } from "../classify.js";
import { createHookPluginScreener, isConfigProblem, type HookPluginOptions } from "../adapter/screener.js";

/** The text that replaces a tool result the service rejected. */
export const WITHHELD_REJECTED = "[Little Canary withheld this tool result after the tool ran; the screening service rejected its text.]";
/** The text that replaces a tool result that could not be screened under the `deny` failure mode. */
export const WITHHELD_UNSCREENED =
  "[Little Canary withheld this tool result after the tool ran; screening did not complete and the fail-closed policy applies.]";
/** Appended to a prompt warning under `deny`: this hook has no way to refuse the message. */
export const CANNOT_BLOCK = " This OpenCode hook cannot block the turn, so the fail-closed policy could not be applied.";

type Rec = Record<string, unknown>;

/** How the warnings name what was screened: the submitted prompt, or a tool's result. */
const PROMPT = {
  flagged: "Prompt flagged",
  screening: "Screening",
  denied: "Prompt rejected by the screening service; this OpenCode hook cannot block the turn.",
};
const TOOL = {
  flagged: "Tool result flagged",
  screening: "Tool-result screening",
  denied: "Tool result withheld before OpenCode sent it to the model.",
};

/** The warning for an outcome, or null when silent. */
function warning(outcome: HostClassification, words: typeof PROMPT): string | null {
  switch (outcome.decision) {
    case "allow":
      return null;
    case "deny":
      return words.denied;
    case "warn":
      return `${words.flagged}; OpenCode continued.`;
  }
  if (words === TOOL && outcome.block)
    return `${outcome.flagged ? "Tool result flagged and withheld" : "Tool result withheld"} before OpenCode sent it to the model because screening did not complete (fail-closed policy).`;
  const base =
    outcome.cause === "incomplete"
      ? outcome.flagged
        ? `${words.flagged}; screening coverage is incomplete`
        : `${words.screening} coverage is incomplete`
      : isConfigProblem(outcome.reason)
        ? `${words.screening} unavailable: ${outcome.reason}`
        : `${words.screening} unavailable`;
  // Only the prompt hook can meet a block it cannot carry out; a tool result is withheld above.
  return `${base}; OpenCode continued.${outcome.block ? CANNOT_BLOCK : ""}`;
}

/** Submitted text: `text` parts that are neither synthetic nor ignored, joined with "\n". */
function promptText(parts: unknown): string {
  if (!Array.isArray(parts)) return "";
  return parts
    .filter(
      (part): part is Rec =>
        isPlainObject(part) && part["type"] === "text" && typeof part["text"] === "string" && part["synthetic"] !== true && part["ignored"] !== true,
    )
    .map((part) => part["text"] as string)
    .join("\n");
}

/** The text of a `content[]` part: a `text` part's text, a `resource` part's resource text, else null. */
function partText(part: unknown): string | null {
  if (!isPlainObject(part)) return null;
  const resource = part["resource"];
  if (part["type"] === "text" && typeof part["text"] === "string") return part["text"];
  if (part["type"] === "resource" && isPlainObject(resource) && typeof resource["text"] === "string") return resource["text"];
  return null;
}

/** Tool text: the string output plus the texts of `content[]`'s parts. */
function toolText(output: unknown): string {
  if (!isPlainObject(output)) return "";
  const own = typeof output["output"] === "string" && output["output"] !== "" ? [output["output"]] : [];
  const content: unknown[] = Array.isArray(output["content"]) ? output["content"] : [];
  return [...own, ...content.map(partText).filter((text) => text !== null)].join("\n");
}

function withhold(output: Rec, notice: string): void {
  if (typeof output["output"] === "string" && output["output"] !== "") output["output"] = notice;
  const content = output["content"];
  if (!Array.isArray(content)) return;
  output["content"] = content.map((part: unknown) => {
    if (partText(part) === null) return part;
    const textPart = part as Rec;
    return textPart["type"] === "text" ? { ...textPart, text: notice } : { ...textPart, resource: { ...(textPart["resource"] as Rec), text: notice } };
  });
}

/** The two hooks OpenCode calls; both mutate only what the comments above say. */
export interface OpenCodeHooks {
  /** Screens the user's message before the model sees it. */
  "chat.message"(input: unknown, output: unknown): Promise<void>;
  /** Screens a tool's output before the model reads it. */
  "tool.execute.after"(input: unknown, output: unknown): Promise<void>;
}

/** What the hooks read: OpenCode's client (for toasts), the environment, a stderr and a deadline. */
export interface OpenCodeHookOptions extends HookPluginOptions {
  readonly client?: unknown;
}

interface ToastClient {
  tui?: { showToast?: (toast: { body: { title: string; message: string; variant: string } }) => unknown };
}

/** Builds the OpenCode hooks; the configuration is checked once, here. */
export function createOpenCodeHooks(options: OpenCodeHookOptions = {}): OpenCodeHooks {
  const client = options.client as ToastClient | undefined;
  const { screen, stderr } = createHookPluginScreener(options, "this plugin");

  async function warn(message: string): Promise<void> {
    try {
      await client?.tui?.showToast?.({ body: { title: "Little Canary", message, variant: "warning" } });
    } catch {
      // A toast that fails must not break the host's turn; stderr below still carries it.
    }
    try {
      stderr.write(`Little Canary: ${message}\n`);
    } catch {
      // Nothing else to report to.
    }
  }

  async function report(message: string | null, notices: readonly string[]): Promise<void> {
    for (const line of message === null ? notices : [message, ...notices]) await warn(line);
  }

  return {
    "chat.message": async (_input, output) => {
      const text = promptText(isPlainObject(output) ? output["parts"] : undefined);
      if (isBlankText(text)) return;
      const { outcome, notices } = await screen(text);
      await report(warning(outcome, PROMPT), notices);
    },
    "tool.execute.after": async (_input, output) => {
      const text = toolText(output);
      if (isBlankText(text)) return;
      const { outcome, notices } = await screen(text);
      if (outcome.block && isPlainObject(output)) withhold(output, outcome.decision === "deny" ? WITHHELD_REJECTED : WITHHELD_UNSCREENED);
      await report(warning(outcome, TOOL), notices);
    },
  };
}
