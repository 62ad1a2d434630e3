// `little-canary screen [FILE|-]`: flags → the `screen` verb (validates the whole batch,
// screens it and streams the document) → one little-canary-batch/v1 document on stdout → exit
// code. Refusals print `error: …` on stderr and nothing on stdout. The library is imported when
// the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import { SCREEN_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";
import { addScreenFlags, type ScreenFlags } from "../screen-flags.js";
import { refuseSharedFiles } from "../shared-files.js";

/** Defines `screen` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("screen")
    .description("Screen a JSONL batch (one JSON string or {text, id?, source?, metadata?} per line) and print a little-canary-batch/v1 document.")
    .argument("[input]", "JSONL file, or - for stdin", "-");
  return addScreenFlags(command)
    .addHelpText("after", SCREEN_HELP)
    .action(async (input: string, flags: ScreenFlags) => {
      state.exitCode = await run(input, flags, io);
    });
}

/** Screens a batch and streams its document to stdout; returns the exit code. */
export async function run(input: string, flags: ScreenFlags, io: CliIo): Promise<number> {
  const [{ screen, InputRefusedError }, { formatScreenSummary }, { verbIo }] = await Promise.all([
    import("../../src/verbs/screen.js"),
    import("../screen-output.js"),
    import("../verb-io.js"),
  ]);
  await refuseSharedFiles(input, flags, io);
  const controller = new AbortController();
  // From the start: an interrupt while reading must also remove the scratch files.
  const unregister = io.onSignal(() => controller.abort(new InputRefusedError("interrupted; nothing printed")));
  try {
    const { summary, exitCode } = await screen({
      ...flags,
      ...(input === "-" ? {} : { input }),
      io: verbIo(io, { progress: "screen", stdin: ["JSONL", "pass FILE"] }),
      signal: controller.signal,
    });
    // After the progress line was cleared: what the document says, in one line.
    await writeOut(io.stderr, formatScreenSummary(summary));
    return exitCode;
  } finally {
    unregister();
  }
}
