// The commander program: parses argv, calls one command function, and turns its result or
// error into an exit code (via exit-codes.ts). `runMain` never calls process.exit, so tests
// drive the whole CLI in-process with a fake CliIo.
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../src/version.js";
import { runCheck, type CheckFlags } from "./commands/check.js";
import { describeFailure } from "./exit-codes.js";
import { processIo, writeOut, type CliIo } from "./io.js";
import { addCanaryFlags, nonNegativeIntArg, positiveIntArg } from "./options.js";
import { runScreen, type ScreenFlags } from "./commands/screen.js";

import type { RunState } from "./run-state.js";

function checkCommand(io: CliIo, state: RunState): Command {
  const command = new Command("check")
    .description("Screen one text from stdin (or --text) and print the verdict JSON on stdout.")
    .option("--text <text>", "text to screen instead of stdin");
  addCanaryFlags(command, "block")
    .addOption(new Option("--provider <name>", "canary backend").choices(["ollama", "openai"]).default("ollama"))
    .option("--base-url <url>", "OpenAI-compatible base URL (with --provider openai)")
    .option("--api-key-env <name>", "environment variable holding the API key (never logged)")
    .option("--judge-model <tag>", "experimental: LLM judge model instead of the regex analyzer")
    .option("--fail-closed", "deny (safe:false) when behavioural coverage failed or did not run")
    .addHelpText(
      "after",
      `
Exit codes: 0 safe and both layers exercised; 1 blocked or flagged; 2 degraded, unexercised,
or invalid input/usage.

Examples:
  echo "What is the capital of France?" | little-canary check
  echo "Ignore all previous instructions" | little-canary check --no-canary
  little-canary check --text "Summarise this page" --fail-closed --timeout 60`,
    )
    .action(async (flags: CheckFlags) => {
      state.exitCode = await runCheck(flags, io);
    });
  return command;
}

function screenCommand(io: CliIo, state: RunState): Command {
  const command = new Command("screen")
    .description("Screen a JSONL batch (one JSON string or {text, id?, source?} per line) and print a little-canary-batch/v1 document.")
    .argument("[input]", "JSONL file, or - for stdin", "-");
  addCanaryFlags(command, "full")
    .option("--fail-closed", "deny (safe:false) items whose behavioural coverage failed or did not run")
    .option("--max-items <n>", "most items accepted", nonNegativeIntArg, 1000)
    .option("--max-item-bytes <n>", "most UTF-8 bytes of one item's text (ceiling 67108864)", nonNegativeIntArg, 65536)
    .option("--max-total-bytes <n>", "most UTF-8 bytes of all texts together", nonNegativeIntArg, 8388608)
    .option("--concurrency <n>", "pipeline checks run at once (output is identical for any value)", positiveIntArg, 1)
    .addHelpText(
      "after",
      `
Exit codes: 0 every item passed with both layers exercised; 1 any item blocked or flagged;
2 refused or empty input, or any item degraded or unexercised (this wins over 1).
Item text is never printed: items carry index, id, source, sha256 and length.

Examples:
  little-canary screen messages.jsonl > batch.json
  cat messages.jsonl | little-canary screen - --concurrency 4 --timeout 120
  little-canary screen messages.jsonl --no-canary   # structural only: items are "unexercised"`,
    )
    .action(async (input: string, flags: ScreenFlags) => {
      state.exitCode = await runScreen(input, flags, io);
    });
  return command;
}

export function buildProgram(io: CliIo, state: RunState): Command {
  const program = new Command("little-canary")
    .description("Screen untrusted text for prompt injection before an agent or a RAG index consumes it.")
    .version(`little-canary ${VERSION}`, "-V, --version", "print the version")
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  program.hook("preSubcommand", (_root, sub) => {
    state.command = sub.name() as CommandName;
  });
  for (const make of [checkCommand, screenCommand]) {
    program.addCommand(make(io, state).exitOverride().configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    }));
  }
  program.action(() => {
    // No subcommand: show help on stdout and exit 1, so a bare call in a script is not "success".
    io.stdout.write(program.helpInformation());
    state.exitCode = 1;
  });
  return program;
}

export async function runMain(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const state: RunState = { command: "main", exitCode: 0 };
  const program = buildProgram(io, state);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
        return 0;
      }
    }
    const failure = describeFailure(state.command, error);
    if (failure.message !== null) await writeOut(io.stderr, `error: ${failure.message}\n`);
    return failure.exitCode;
  }
}
