// Runs `little-canary eval` in-process through its own command builder, the way cli/program.ts
// runs a subcommand (exit codes via cli/exit-codes.ts), so these tests need neither a build nor
// the lead's wiring of the command into the program.
import { Writable, Readable } from "node:stream";
import { Command, CommanderError } from "commander";
import { evalCommand } from "../../cli/commands/eval.js";
import { describeFailure } from "../../cli/exit-codes.js";
import type { CliIo } from "../../cli/io.js";
import type { RunState } from "../../cli/run-state.js";

class Capture extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    callback();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

export interface EvalCliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface EvalCliOptions {
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  readonly tty?: boolean;
  /** Receives a trigger that simulates Ctrl-C. */
  readonly signals?: { trigger?: () => void };
}

export async function runEvalCli(args: readonly string[], options: EvalCliOptions): Promise<EvalCliRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const handlers = new Set<(signal: NodeJS.Signals) => void>();
  if (options.signals) options.signals.trigger = () => handlers.forEach((h) => h("SIGINT"));
  const io: CliIo = {
    stdin: Readable.from([]),
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd,
    stderrIsTTY: options.tty ?? false,
    onSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
  const state: RunState = { command: "eval", exitCode: 0 };
  const output = { writeOut: (t: string) => io.stdout.write(t), writeErr: (t: string) => io.stderr.write(t) };
  const program = new Command("little-canary").exitOverride().configureOutput(output);
  program.addCommand(evalCommand(io, state).exitOverride().configureOutput(output));
  let code: number;
  try {
    await program.parseAsync(["eval", ...args], { from: "user" });
    code = state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError && error.code === "commander.helpDisplayed") {
      code = 0;
    } else {
      const failure = describeFailure("eval", error);
      if (failure.message !== null) stderr.write(`error: ${failure.message}\n`);
      code = failure.exitCode;
    }
  }
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
