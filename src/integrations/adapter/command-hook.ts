// The shared body of the command hooks (Claude Code `UserPromptSubmit`, Gemini CLI `BeforeAgent`):
// read the hook input, check the configuration, screen the prompt, hand the host's renderer one
// outcome. Order: failure mode, endpoint and timeout, hook input, event name, prompt, token file,
// request, then the classifier's. A prompt with nothing to screen (empty or Unicode whitespace
// alone, the service's own rule) is not sent: the service would refuse it (400), and that refusal
// is no screening failure; the host gets its own nothing-to-screen answer instead. Stdin is capped
// at 1 MiB and a deadline; parser messages (which quote the input) are never repeated; the caller
// writes one JSON object and nothing to stderr.
import { isBlankText } from "../../core/codepoints.js";
import { readUntilSettled } from "../../core/read-until-settled.js";
import { unscreenedForHost, type HostClassification } from "../classify.js";
import { failureModeOf, readAdapterEnv, type AdapterEnv } from "./config.js";
import { screenerFor, unscreenedFor, type ScreenResult } from "./screener.js";
import { parseJsonObject, type JsonObjectReasons } from "./client.js";

/** The most hook-input bytes read from stdin. */
const MAX_HOOK_INPUT_BYTES = 1048576;
/** How long the hook waits for its input to arrive. */
const STDIN_DEADLINE_MS = 2000;

/** What was read from stdin: the bytes, or why they could not be used. */
type BoundedRead = { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly reason: string };

/** A host's answer object (the hook writes it as one JSON line). */
export type HookAnswer = Record<string, string>;

/** Turns one outcome (plus health notices) into the host's answer object. */
export type HookRenderer = (outcome: HostClassification, notices: readonly string[]) => HookAnswer;

/**
 * Reads at most MAX_HOOK_INPUT_BYTES from `stream`. Past the cap it stops listening and reports
 * oversize (the host may still be writing; the process ends after answering).
 */
function readBoundedInput(stream: NodeJS.ReadableStream): Promise<BoundedRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  return readUntilSettled<BoundedRead>(stream, STDIN_DEADLINE_MS, { ok: false, reason: "hook input did not arrive in time" }, (settle) => ({
    data: (chunk) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      size += bytes.length;
      if (size > MAX_HOOK_INPUT_BYTES) return settle({ ok: false, reason: `hook input exceeded ${MAX_HOOK_INPUT_BYTES} bytes` });
      chunks.push(bytes);
    },
    end: () => settle({ ok: true, bytes: Buffer.concat(chunks) }),
    error: () => settle({ ok: false, reason: "hook input could not be read" }),
  }));
}

const HOOK_INPUT_REASONS: JsonObjectReasons = {
  utf8: "hook input was not valid UTF-8",
  json: "hook input was not valid JSON",
  object: "hook input was not a JSON object",
};

/** One hook invocation's inputs: what stdin gave, the environment, the expected event. */
interface HookInvocation {
  readonly read: BoundedRead;
  readonly env: AdapterEnv;
  readonly event: string;
  readonly adapterName: string;
}

/** decideHook's value for a prompt with nothing to screen: no request was made. */
export const NOTHING_TO_SCREEN = Object.freeze({ nothingToScreen: true } as const);

/** What one hook invocation comes to: a screen's result, or NOTHING_TO_SCREEN. */
export type HookDecision = ScreenResult | typeof NOTHING_TO_SCREEN;

/** Decides one hook invocation (configuration, hook input, then the screen itself). */
export async function decideHook({ read, env, event, adapterName }: HookInvocation): Promise<HookDecision> {
  const config = readAdapterEnv(env);
  const screen = screenerFor(config, adapterName);
  // A configuration problem is reported before the hook input is read (an invalid failure mode
  // counts as deny), and nothing is screened.
  if (!config.ok) return screen("");
  const unscreened = unscreenedFor(config);
  const parsed = read.ok ? parseJsonObject(read.bytes, HOOK_INPUT_REASONS) : read;
  if (!parsed.ok) return unscreened(parsed.reason);
  if (parsed.value["hook_event_name"] !== event) return unscreened("unexpected hook event");
  const prompt = parsed.value["prompt"];
  if (typeof prompt !== "string") return unscreened("prompt was not a string");
  return isBlankText(prompt) ? NOTHING_TO_SCREEN : screen(prompt);
}

/** A command hook: its event, how it names itself in notices, its host's renderer and its nothing-to-screen answer. */
export interface CommandHookOptions {
  readonly event: string;
  readonly adapterName: string;
  readonly render: HookRenderer;
  /** The answer for a prompt with nothing to screen (empty or whitespace only), written as it is. */
  readonly nothingToScreen: HookAnswer;
  readonly stdin?: NodeJS.ReadableStream & {
    /** Called once the input is read, so an open pipe cannot keep the process alive. */
    destroy?: () => unknown;
  };
  readonly stdout?: NodeJS.WritableStream;
  readonly env?: AdapterEnv;
}

/**
 * Runs a command hook end to end: stdin → decision → one JSON line on stdout. Never throws and
 * never writes to stderr; an unexpected error becomes an unscreened outcome named by its class.
 */
export async function runCommandHook(options: CommandHookOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const env = options.env ?? process.env;
  let answer: HookAnswer;
  try {
    const read = await readBoundedInput(stdin);
    // Nothing more is read; a host still writing past the cap must not keep this process alive.
    if (typeof stdin.destroy === "function") stdin.destroy();
    const decision = await decideHook({ read, env, event: options.event, adapterName: options.adapterName });
    answer = "nothingToScreen" in decision ? options.nothingToScreen : options.render(decision.outcome, decision.notices);
  } catch (error) {
    const name = error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : "Error";
    answer = options.render(unscreenedForHost(name, { failureMode: failureModeOf(readAdapterEnv(env)) }), []);
  }
  await new Promise((resolve) => stdout.write(`${JSON.stringify(answer)}\n`, () => resolve(undefined)));
}

/**
 * A host's answer in the fixed key order: `decision` and `reason` as given, then `systemMessage`
 * when there is one: "<message> <notice> <notice>" (health notices appended).
 */
export function hookAnswer(
  answer: { readonly decision?: string; readonly reason?: string },
  message: string | undefined,
  notices: readonly string[],
): HookAnswer {
  const systemMessage = [message, ...notices].filter((part) => typeof part === "string" && part !== "").join(" ");
  return systemMessage === "" ? { ...answer } : { ...answer, systemMessage };
}
