// `little-canary check`: flags → the `check` verb (reads stdin strictly when no --text, screens
// the text) → the verdict JSON on stdout → exit code (checkExitCode).
// Exit 0 only when the text is safe AND both layers were exercised; 1 for a detection
// (block or flag); 2 when coverage failed or did not run, or the input/usage was invalid.
// The library is imported when the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import type { CheckOptions } from "../../src/verbs/check.js";
import { UsageError } from "../../src/core/errors.js";
import { addCanaryFlags, collectValue } from "../flags.js";
import { CHECK_HELP } from "../help.js";
import { writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";

export type CheckFlags = Omit<CheckOptions, "io" | "text"> & { text?: string | string[] };

/** Defines `check` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("check")
    .description("Screen one text from stdin (or --text) and print the verdict JSON on stdout.")
    // Collected, not last-wins: given twice with two texts, only the last would be screened and a
    // script would think both were. Refused in run, without echoing either text.
    .option("--text <text>", "text to screen instead of stdin (once)", collectValue);
  return addCanaryFlags(command, "block")
    .option("--judge-model <tag>", "experimental: LLM judge model instead of the regex analyzer")
    .option("--fail-closed", "deny (safe:false) when behavioural coverage failed or did not run")
    .addHelpText("after", CHECK_HELP)
    .action(async (flags: CheckFlags) => {
      state.exitCode = await run(flags, io);
    });
}

/** Screens one text and prints its verdict; returns the exit code. */
export async function run(flags: CheckFlags, io: CliIo): Promise<number> {
  const [{ check }, { verbIo }] = await Promise.all([import("../../src/verbs/check.js"), import("../verb-io.js")]);
  const texts = flags.text === undefined ? [] : [flags.text].flat();
  if (new Set(texts).size > 1) throw new UsageError("--text was given more than once with different texts: give one text (or none, to read stdin)");
  const { text: _texts, ...rest } = flags;
  const { verdict, exitCode } = await check({
    ...rest,
    ...(texts.length > 0 ? { text: texts[0] } : {}),
    io: verbIo(io, { stdin: ["the text", "pass --text"] }),
  });
  await writeOut(io.stdout, `${JSON.stringify(verdict.toDict())}\n`);
  return exitCode;
}
