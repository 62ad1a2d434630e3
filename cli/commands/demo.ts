// `little-canary demo`: flags → the `demo` verb (replay or live, and the capture) → text or
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
import { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL } from "../../src/verbs/defaults.js";
import type { RunState } from "../run-state.js";

/** Replays or runs the demo, prints its lines (or JSON) and returns the exit code. */
export async function run(flags: DemoFlags, io: CliIo): Promise<number> {
  const [{ demo, DemoArgumentError }, { demoFlagName, demoSettingsFromFlags }, { verbIo }] = await Promise.all([
    import("../../src/verbs/demo.js"),
    import("../demo-flags.js"),
    import("../verb-io.js"),
  ]);
  const settings = demoSettingsFromFlags(flags);
  try {
    const { text, exitCode } = await demo({ ...settings, io: verbIo(io) });
    await writeOut(io.stdout, text);
    return exitCode;
  } catch (error) {
    if (!(error instanceof DemoArgumentError)) throw error;
    // The library calls the setting by its option name; the user typed a flag.
    await writeOut(io.stderr, `DEMO ERROR: ${error.messageNaming(demoFlagName(error.setting, flags))}\n`);
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
