// Runs one command builder (serveCommand, demoCommand) in-process inside a minimal program that
// maps errors like cli/program.ts runMain does, so the commands are tested before the lead wires
// them into the real program. stderr can be watched while the command runs (serve logs its port).
import { Command, CommanderError } from "commander";
import { Readable, Writable } from "node:stream";
import { describeFailure } from "../../cli/exit-codes.js";
import type { CliIo } from "../../cli/io.js";
import type { RunState } from "../../cli/run-state.js";

export class LiveCapture extends Writable {
  text = "";
  readonly #watchers = new Set<() => void>();
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    this.#watchers.forEach((watch) => watch());
    callback();
  }
  /** Resolves with the first match of `pattern` in everything written so far or later. */
  waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const match = pattern.exec(this.text);
        if (match) {
          this.#watchers.delete(check);
          clearTimeout(timer);
          resolve(match);
        }
        return match !== null;
      };
      const timer = setTimeout(() => {
        this.#watchers.delete(check);
        reject(new Error(`pattern ${pattern} not written in time`));
      }, timeoutMs);
      if (!check()) this.#watchers.add(check);
    });
  }
}

export interface LocalRun {
  readonly stdout: LiveCapture;
  readonly stderr: LiveCapture;
  readonly signal: (signal?: NodeJS.Signals) => void;
  readonly done: Promise<number>;
}

export type CommandBuilder = (io: CliIo, state: RunState) => Command;

export function runLocal(
  builder: CommandBuilder,
  argv: readonly string[],
  options: { env?: Record<string, string | undefined> } = {},
): LocalRun {
  const stdout = new LiveCapture();
  const stderr = new LiveCapture();
  const handlers = new Set<(signal: NodeJS.Signals) => void>();
  const io: CliIo = {
    stdin: Readable.from([]),
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: process.cwd(),
    stderrIsTTY: false,
    onSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
  const state: RunState = { command: "main", exitCode: 0 };
  const output = { writeOut: (text: string) => stdout.write(text), writeErr: (text: string) => stderr.write(text) };
  const program = new Command("little-canary").exitOverride().configureOutput(output);
  const command = builder(io, state).exitOverride().configureOutput(output);
  program.addCommand(command);
  program.hook("preSubcommand", () => {
    state.command = command.name() as RunState["command"];
  });
  const done = (async (): Promise<number> => {
    try {
      await program.parseAsync([...argv], { from: "user" });
      return state.exitCode;
    } catch (error) {
      if (error instanceof CommanderError && (error.code === "commander.helpDisplayed" || error.code === "commander.help")) return 0;
      const failure = describeFailure(state.command, error);
      if (failure.message !== null) stderr.write(`error: ${failure.message}\n`);
      return failure.exitCode;
    }
  })();
  return { stdout, stderr, signal: (signal = "SIGINT") => handlers.forEach((handler) => handler(signal)), done };
}
