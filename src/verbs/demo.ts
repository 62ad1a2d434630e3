// `demo`, the verb behind `little-canary demo`: `runDemoCommand`, with what must be said before a
// live request going to the reporter as it happens; the result text is returned.
import { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL } from "../canary/defaults.js";
import { runDemoCommand } from "../demo/command.js";
import { demoJson, label, liveDisclosureJson, liveDisclosureLines } from "../demo/render.js";
import type { VerbIo } from "./reporter.js";

export { DemoArgumentError } from "../demo/live-endpoint.js";

/** The settings of one demo run, as plain values. */
export interface DemoOptions {
  /** The live contrast against a loopback Ollama; otherwise replay. */
  readonly live?: boolean;
  /** Replay: the capture file (little-canary-demo-replay/v1). */
  readonly capture?: string;
  /** Live: where a verified run is written as a capture. */
  readonly record?: string;
  readonly backend: string;
  /** Live: default DEFAULT_CANARY_MODEL. */
  readonly canaryModel?: string;
  /** Live: default DEFAULT_OLLAMA_URL. */
  readonly ollamaUrl?: string;
  /** Live: seconds per call; absent: LITTLE_CANARY_TIMEOUT, else 600. */
  readonly timeout?: number;
  /** One little-canary-demo/v1 JSON line instead of text. */
  readonly json?: boolean;
  readonly io: VerbIo;
}

const lines = (items: readonly string[]): string => items.map((line) => `${line}\n`).join("");

/**
 * Replays or runs the demo; returns the text to print last and the exit code (0 verified, 1
 * disagrees, 2 unavailable or incomplete). Throws DemoArgumentError for a bad live backend, model or
 * endpoint, before any request.
 */
export async function demo(options: DemoOptions) {
  const { reporter, env } = options.io;
  const result = await runDemoCommand({
    live: options.live === true,
    ...(options.capture !== undefined ? { capturePath: options.capture } : {}),
    ...(options.record !== undefined ? { recordPath: options.record } : {}),
    backend: options.backend,
    model: options.canaryModel ?? DEFAULT_CANARY_MODEL,
    endpoint: options.ollamaUrl ?? DEFAULT_OLLAMA_URL,
    ...(options.timeout !== undefined ? { timeoutSeconds: options.timeout } : {}),
    env,
    onReplayError: (line) => reporter.write(`${line}\n`),
    onDisclosure: (endpoint, model) =>
      options.json ? reporter.diagnostic(`${liveDisclosureJson(endpoint, model)}\n`) : reporter.output(lines(liveDisclosureLines(endpoint, model))),
    onModelDigest: async (digest) => {
      if (!options.json) await reporter.output(`${label("MODEL_SHA", digest)}\n`);
    },
    onNote: (line) => reporter.diagnostic(`${line}\n`),
  });
  const { outcome, modelCall, exitCode } = result;
  return { text: options.json ? `${demoJson(outcome, modelCall, exitCode)}\n` : lines(result.lines), exitCode };
}
