// The shared body of the command hooks (Claude Code `UserPromptSubmit`, Gemini CLI
// `BeforeAgent`): read the hook input, check the configuration, screen the prompt, and hand the
// host-specific renderer one outcome. Evaluation order is cli-server-demo.md §5.1 for both hosts
// (Gemini no longer skips the failure-mode check on bad input, §7 item 10):
//   1 failure mode, 2 endpoint and timeout, (hook input errors), 3 event name, 4 prompt,
//   5 HTTP request, 6 required verdict fields, 7 unsafe, 8 coverage, 9 advisory.
//
// Hostile input: stdin is capped at 1 MiB and must arrive within STDIN_DEADLINE_MS; parser
// messages are never repeated (they quote the input); the prompt leaves only for the validated
// loopback endpoint. The caller writes exactly one JSON object and nothing to stderr.
import { unscreenedForHost } from "./classify.mjs";
import { readAdapterEnv } from "./config.mjs";
import { createScreener } from "./screener.mjs";

export const MAX_HOOK_INPUT_BYTES = 1048576;
export const STDIN_DEADLINE_MS = 2000;

/**
 * Reads at most `maxBytes` from `stream`. Past the cap it stops listening and reports oversize
 * (the host may still be writing; the process ends after answering).
 * @param {NodeJS.ReadableStream} stream
 * @returns {Promise<{ ok: true, bytes: Buffer } | { ok: false, reason: string }>}
 */
export function readBoundedInput(stream, maxBytes = MAX_HOOK_INPUT_BYTES, deadlineMs = STDIN_DEADLINE_MS) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeListener("data", onData);
      stream.removeListener("end", onEnd);
      stream.removeListener("error", onError);
      if (typeof stream.pause === "function") stream.pause();
      resolve(result);
    };
    const onData = (chunk) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      size += bytes.length;
      if (size > maxBytes) return finish({ ok: false, reason: `hook input exceeded ${maxBytes} bytes` });
      chunks.push(bytes);
    };
    const onEnd = () => finish({ ok: true, bytes: Buffer.concat(chunks) });
    const onError = () => finish({ ok: false, reason: "hook input could not be read" });
    const timer = setTimeout(() => finish({ ok: false, reason: "hook input did not arrive in time" }), deadlineMs);
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
  });
}

/** @returns {{ ok: true, input: Record<string, unknown> } | { ok: false, reason: string }} */
function parseHookInput(read) {
  if (!read.ok) return read;
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
  } catch {
    return { ok: false, reason: "hook input was not valid UTF-8" };
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "hook input was not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, reason: "hook input was not a JSON object" };
  }
  return { ok: true, input: value };
}

/**
 * Decides one hook invocation.
 * @param {{ read: { ok: true, bytes: Buffer } | { ok: false, reason: string }, env: Record<string, string | undefined>, event: string, adapterName: string }} args
 * @returns {Promise<{ outcome: ReturnType<typeof unscreenedForHost>, notices: string[] }>}
 */
export async function decideHook({ read, env, event, adapterName }) {
  const config = readAdapterEnv(env);
  // An invalid failure mode is reported in fail-open style and nothing is screened: the operator
  // asked for a policy we cannot name, so we neither invent `allow` silently nor refuse blindly.
  if (!config.ok) return { outcome: unscreenedForHost(config.problem, { failureMode: config.failureMode ?? "allow" }), notices: [] };
  const failureMode = config.failureMode;
  const parsed = parseHookInput(read);
  if (!parsed.ok) return { outcome: unscreenedForHost(parsed.reason, { failureMode }), notices: [] };
  if (parsed.input.hook_event_name !== event) return { outcome: unscreenedForHost("unexpected hook event", { failureMode }), notices: [] };
  const prompt = parsed.input.prompt;
  if (typeof prompt !== "string") return { outcome: unscreenedForHost("prompt was not a string", { failureMode }), notices: [] };
  const screen = createScreener({ endpoint: config.endpoint, timeoutMs: config.timeoutMs, failureMode, adapterName });
  return screen(prompt);
}

/**
 * Runs a command hook end to end: stdin → decision → one JSON line on stdout. Never throws and
 * never writes to stderr; an unexpected error becomes an unscreened outcome named by its class.
 * @param {{ event: string, adapterName: string, render: (outcome: any, notices: string[]) => Record<string, string>, stdin?: NodeJS.ReadableStream, stdout?: NodeJS.WritableStream, env?: Record<string, string | undefined> }} options
 */
export async function runCommandHook(options) {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const env = options.env ?? process.env;
  let answer;
  try {
    const read = await readBoundedInput(stdin);
    // Nothing more is read; a host still writing past the cap must not keep this process alive.
    if (typeof stdin.destroy === "function") stdin.destroy();
    const { outcome, notices } = await decideHook({ read, env, event: options.event, adapterName: options.adapterName });
    answer = options.render(outcome, notices);
  } catch (error) {
    const name = error instanceof Error && /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : "Error";
    const mode = readAdapterEnv(env).failureMode ?? "allow";
    answer = options.render(unscreenedForHost(name, { failureMode: mode }), []);
  }
  await new Promise((resolve) => stdout.write(`${JSON.stringify(answer)}\n`, () => resolve(undefined)));
}

/** Appends the health notices to an optional message: "<message> <notice> <notice>". */
export function withNotices(message, notices) {
  const parts = [message, ...notices].filter((part) => typeof part === "string" && part !== "");
  return parts.length === 0 ? undefined : parts.join(" ");
}
