// `little-canary check`: flags → `checkText` (reads stdin strictly when no --text, screens the
// text) → the verdict JSON on stdout → exit code (checkExitCode).
// Exit 0 only when the text is safe AND both layers were exercised; 1 for a detection
// (block or flag); 2 when coverage failed or did not run, or the input/usage was invalid.
// The library is imported when the command runs: defining it (for the program) stays cheap.
import { Command } from "commander";
import { UsageError } from "../../src/core/errors.js";
import { addCanaryFlags, type CanaryFlags } from "../flags.js";
import { CHECK_HELP } from "../help.js";
import { hintIfTerminalStdin, writeOut, type CliIo } from "../io.js";
import type { RunState } from "../run-state.js";
import type { SecurityPipeline } from "../../src/pipeline/pipeline.js";

export interface CheckFlags extends CanaryFlags {
  text?: string;
  judgeModel?: string;
}

/** Defines `check` with its flags and help; its action runs `run`. */
export function define(io: CliIo, state: RunState): Command {
  const command = new Command("check")
    .description("Screen one text from stdin (or --text) and print the verdict JSON on stdout.")
    .option("--text <text>", "text to screen instead of stdin");
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
  const [{ pipelineOptionsFromFlags }, { checkExitCode, checkText }, pipelines, { canaryOutageWarning, canaryTarget }] = await Promise.all([
    import("../options.js"),
    import("../../src/check/check-text.js"),
    import("../../src/pipeline/pipeline.js"),
    import("../../src/pipeline/canary-warning.js"),
  ]);
  const options = { ...pipelineOptionsFromFlags(flags, io) };
  if (flags.judgeModel !== undefined) {
    if (flags.judgeModel.trim() === "") throw new UsageError("--judge-model must not be empty");
    Object.assign(options, { judgeModel: flags.judgeModel });
  }
  if (flags.text === undefined) await hintIfTerminalStdin(io, "the text", "pass --text");
  const built: { pipeline?: SecurityPipeline } = {};
  const { verdict, canaryOutage } = await checkText({
    input: flags.text !== undefined ? flags.text : io.stdin,
    // Built after the input is read: an empty input is refused before a bad pipeline setting.
    pipeline: () => (built.pipeline = new pipelines.SecurityPipeline(options)),
  });
  if (canaryOutage !== null) await writeOut(io.stderr, canaryOutageWarning(canaryTarget(built.pipeline as SecurityPipeline), canaryOutage));
  await writeOut(io.stdout, `${JSON.stringify(verdict.toDict())}\n`);
  return checkExitCode(verdict);
}
