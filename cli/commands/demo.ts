// `little-canary demo`: flags → `runDemoCommand` (replay or live, and the capture) → text or
// JSON on stdout → exit code. Bare `demo` is replay, which reads a capture (`--capture`), never
// the network and never LITTLE_CANARY_TIMEOUT; this package ships no capture, so bare `demo` is
// REPLAY UNAVAILABLE (exit 2). Live checks its arguments before any request and discloses what
// will be sent (docs/demo.md). Exit codes: 0 verified, 1 a complete run that disagrees, 2 usage
// error, unavailable, or incomplete.
import { Command, Option } from "commander";
import type { DemoFlags } from "../demo-flags.js";
import { DEMO_ERROR_EXIT } from "../exit-codes.js";
import { writeOut, type CliIo } from "../io.js";
import { timeoutArg } from "../flags.js";
import { DEMO_HELP } from "../help.js";
import { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL } from "../../src/canary/defaults.js";
import type { RunState } from "../run-state.js";

const lines = (items: readonly string[]): string => items.map((line) => `${line}\n`).join("");

/** Replays or runs the demo, prints its lines (or JSON) and returns the exit code. */
export async function run(flags: DemoFlags, io: CliIo): Promise<number> {
  const [{ runDemoCommand }, { DemoArgumentError }, { demoJson, label, liveDisclosureJson, liveDisclosureLines }, { demoOptionsFromFlags }] = await Promise.all(
    [import("../../src/demo/command.js"), import("../../src/demo/live-endpoint.js"), import("../../src/demo/render.js"), import("../demo-flags.js")],
  );
  const options = demoOptionsFromFlags(flags, io);
  try {
    const result = await runDemoCommand({
      ...options,
      onReplayError: (line) => void io.stderr.write(`${line}\n`),
      onDisclosure: (endpoint, model) =>
        flags.json ? writeOut(io.stderr, `${liveDisclosureJson(endpoint, model)}\n`) : writeOut(io.stdout, lines(liveDisclosureLines(endpoint, model))),
      onModelDigest: async (digest) => {
        if (!flags.json) await writeOut(io.stdout, `${label("MODEL_SHA", digest)}\n`);
      },
      onNote: (line) => writeOut(io.stderr, `${line}\n`),
    });
    const { outcome, modelCall, exitCode } = result;
    await writeOut(io.stdout, flags.json ? `${demoJson(outcome, modelCall, exitCode)}\n` : lines(result.lines));
    return exitCode;
  } catch (error) {
    if (!(error instanceof DemoArgumentError)) throw error;
    await writeOut(io.stderr, `DEMO ERROR: ${error.message}\n`);
    return DEMO_ERROR_EXIT[error.code];
  }
}

/** Defines `demo` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  return new Command("demo")
    .description("Show the canary contrast: replay a recorded capture (default) or run it live against a loopback Ollama.")
    .option("--replay", "replay a recorded capture (the default)")
    .option("--live", "send the fixed clean/attack pair to a loopback Ollama")
    .option("--capture <path>", "capture file to replay (little-canary-demo-replay/v1)")
    .option("--record <path>", "with --live: write a verified run as a capture file")
    .addOption(new Option("--backend <name>", "live backend").default("ollama"))
    .option("--canary-model <tag>", `live canary model (default: "${DEFAULT_CANARY_MODEL}")`)
    .option("--ollama-url <url>", `live Ollama origin, a literal loopback IP over http (default: "${DEFAULT_OLLAMA_URL}")`)
    .option("--model <tag>", "the older name of --canary-model")
    .option("--endpoint <url>", "the older name of --ollama-url")
    .option("--timeout <seconds>", "live per-call timeout (default: $LITTLE_CANARY_TIMEOUT, else 600)", timeoutArg)
    .option("--json", "print one little-canary-demo/v1 JSON line instead of text")
    .addHelpText("after", DEMO_HELP)
    .action(async (flags: DemoFlags) => {
      state.exitCode = await run(flags, io);
    });
}
