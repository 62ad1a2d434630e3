// The commander program: assembles the commands (cli/commands/*, one file each), parses argv,
// runs the one that was asked for, and turns its result or error into an exit code (via
// exit-codes.ts). `runMain` never calls process.exit, so tests drive the whole CLI in-process
// with a fake CliIo. Defining every command is cheap: each imports its library code only when it
// runs, so `--version` or `check` does not load what `ingest` or `serve` needs.
import { Command, CommanderError } from "commander";
import { VERSION } from "../src/core/version.js";
import { define as cacheCommand } from "./commands/cache.js";
import { define as checkCommand } from "./commands/check.js";
import { define as demoCommand } from "./commands/demo.js";
import { define as evalCommand } from "./commands/eval.js";
import { define as indexCommand } from "./commands/index.js";
import { define as ingestCommand } from "./commands/ingest.js";
import { define as modelCommand } from "./commands/model.js";
import { define as screenCommand } from "./commands/screen.js";
import { define as serveCommand } from "./commands/serve.js";
import { define as verifyCommand } from "./commands/verify.js";
import { PROGRAM_HELP } from "./help.js";
import { describeFailure, REFUSED_EXIT, type CommandName } from "./exit-codes.js";
import { isClosedOutputError, OutputClosedError, commandSafeStderr, processIo, watchOutput, writeLastWords, writeOut, type CliIo } from "./io.js";
import type { RunState } from "./run-state.js";

/**
 * Releases every embedded canary, when the command was given `--canary embedded[:PATH]` (the
 * only way one opens): its module is loaded only then, and had been by the command already.
 */
async function disposeEmbeddedCanaries(state: RunState): Promise<void> {
  if (state.embeddedCanary === true) await (await import("../src/canary/embedded-probe.js")).disposeEmbeddedCanaries();
}

/** The commands that handle interrupts themselves (io.onSignal): an interrupt held while the program loaded is theirs. */
const TAKES_INTERRUPTS: ReadonlySet<string> = new Set<CommandName>(["screen", "ingest", "serve", "eval", "model"]);

function buildProgram(io: CliIo, state: RunState): Command {
  const program = new Command("little-canary")
    .description("Screen untrusted text for prompt injection before an agent or a RAG index consumes it.")
    .version(`little-canary ${VERSION}`, "-V, --version", "print the version")
    .addHelpText("after", PROGRAM_HELP)
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  program.hook("preSubcommand", (_root, sub) => {
    state.command = sub.name() as CommandName;
  });
  // The root's hook runs before the command's own (cli/flags.ts moves a backend to canaryBackend).
  program.hook("preAction", async (_root, action) => {
    if (typeof action.getOptionValue("canary") === "string") state.embeddedCanary = true;
    // A command that registers no interrupt handler lets one held while the program loaded end it now.
    if (!TAKES_INTERRUPTS.has(state.command)) await io.releaseHeldInterrupts?.();
  });
  for (const make of [
    checkCommand,
    screenCommand,
    ingestCommand,
    verifyCommand,
    indexCommand,
    serveCommand,
    demoCommand,
    evalCommand,
    cacheCommand,
    modelCommand,
  ]) {
    const command = make(io, state)
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      });
    requireAfterUnknownOptions(command);
    pointToHelpAfterError(command, "little-canary");
    program.addCommand(command);
  }
  return program;
}

/**
 * A misused command (`verify m.json e.json`, a misspelt flag) ends its error with where its
 * options and examples are, for it and each of its subcommands.
 */
function pointToHelpAfterError(command: Command, parent: string): void {
  const path = `${parent} ${command.name()}`;
  command.showHelpAfterError(`(${path} --help lists its options, with examples)`);
  for (const sub of command.commands) pointToHelpAfterError(sub, path);
}

/**
 * commander reports a missing mandatory option before an unknown one, so `--manifst m.json` read
 * "required option '--manifest <path>' not specified", with no word of the typo. Each mandatory
 * option (of `command` and its subcommands) is checked in a preAction hook instead: by then
 * commander has refused an unknown option and named the one meant ("Did you mean --manifest?").
 */
function requireAfterUnknownOptions(command: Command): void {
  const required = command.options.filter((option) => option.mandatory);
  for (const option of required) option.makeOptionMandatory(false);
  if (required.length > 0) {
    command.hook("preAction", (self) => {
      const missing = required.find((option) => self.getOptionValue(option.attributeName()) === undefined);
      // The words and code of commander's own check.
      if (missing !== undefined) self.error(`error: required option '${missing.flags}' not specified`, { code: "commander.missingMandatoryOptionValue" });
    });
  }
  for (const sub of command.commands) requireAfterUnknownOptions(sub);
}

export async function runMain(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const state: RunState = { command: "main", exitCode: 0 };
  // A command that handles an interrupt (screen, ingest, serve, model pull) also releases any
  // embedded canary at once, so a model evaluation in flight stops at its next token instead of
  // running to its deadline; its check ends as `unavailable` in a run that is being abandoned.
  //
  // A command unregisters its handler only once its result is decided (the pair committed, the
  // summary printed). From then until the process exits an interrupt must not turn that result
  // into a signal death (exit 130): so before the command's handler goes, one that ignores the
  // signal is registered in its place, and it stays until the process exits.
  let resultKept = false;
  const keepResult = (): void => {
    if (resultKept) return;
    resultKept = true;
    io.onSignal(() => undefined);
  };
  const releasing: CliIo = {
    ...io,
    // The last line of defence against a CI workflow command smuggled in through a file name.
    stderr: commandSafeStderr(io.stderr),
    onSignal: (handler) => {
      const unregister = io.onSignal((signal) => {
        handler(signal);
        void disposeEmbeddedCanaries(state);
      });
      return () => {
        keepResult();
        unregister();
      };
    },
  };
  try {
    return await runMainCommand(argv, releasing, state);
  } finally {
    // Whatever ended the command (its result, an error, an interrupt that aborted it), an
    // embedded canary's model and context are released before the process exits.
    if (state.command !== "main") await disposeEmbeddedCanaries(state);
  }
}

async function runMainCommand(argv: readonly string[], io: CliIo, state: RunState): Promise<number> {
  // A reader that closes stdout early (`| head -c 100`) must not crash the process with a stack
  // trace and exit 1 ("detections"): its error is caught here and becomes the refused code.
  const stdout = watchOutput(io.stdout, "stdout");
  watchOutput(io.stderr, "stderr");
  const program = buildProgram(io, state);
  let result: ProgramResult;
  try {
    if (argv.length === 0) {
      // No subcommand is a usage error: the help goes to stderr (stdout carries data only) and
      // the exit code is the refused one, so a bare call in a script is never "success".
      await writeOut(io.stderr, program.helpInformation());
      result = { code: REFUSED_EXIT.main, informational: false };
    } else {
      result = await runProgram(program, argv, state);
    }
  } catch (error) {
    return fail(io, state, error);
  }
  // Output written without waiting (commander's help) can also meet a closed pipe: an empty
  // write settles only after everything before it, so its outcome covers all of stdout.
  try {
    await writeOut(io.stdout, "");
  } catch (error) {
    if (result.informational && readerLeft(error)) return result.code;
    return fail(io, state, error);
  }
  const closed = stdout.failure();
  if (closed !== null && !(result.informational && isClosedOutputError(closed))) {
    return fail(io, state, new OutputClosedError("stdout", { cause: closed }));
  }
  return result.code;
}

/**
 * How the program ended. `informational`: it printed help or the version and nothing else, which
 * a reader may stop reading early (`--help | head -1`) without anything having gone wrong.
 */
interface ProgramResult {
  readonly code: number;
  readonly informational: boolean;
}

/** A write that failed only because the reader closed the pipe (not a full disk or an I/O error). */
function readerLeft(error: unknown): boolean {
  return error instanceof OutputClosedError && isClosedOutputError(error.cause);
}

async function runProgram(program: Command, argv: readonly string[], state: RunState): Promise<ProgramResult> {
  try {
    await program.parseAsync([...argv], { from: "user" });
    return { code: state.exitCode, informational: false };
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
        return { code: 0, informational: true };
      }
    }
    throw error;
  }
}

async function fail(io: CliIo, state: RunState, error: unknown): Promise<number> {
  const failure = describeFailure(state.command, error);
  if (failure.message !== null) await writeLastWords(io.stderr, `error: ${failure.message}\n`);
  return failure.exitCode;
}
