// Runs the CLI in-process (runMain) with captured stdout/stderr, a chosen environment and stdin,
// so CLI tests need no build and no child process. Exit code, stdout and stderr are returned.
import { PassThrough, Readable, Writable } from "node:stream";
import { runMain } from "../../cli/program.js";
import type { CliIo } from "../../cli/io.js";

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

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

export interface RunCliOptions {
  readonly stdin?: string | Uint8Array;
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly tty?: boolean;
  /** Receives the signal trigger so a test can simulate Ctrl-C. */
  readonly signals?: { trigger?: (signal: NodeJS.Signals) => void };
}

export async function runCli(argv: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = options.stdin === undefined ? Readable.from([]) : Readable.from([Buffer.from(options.stdin)]);
  const handlers = new Set<(signal: NodeJS.Signals) => void>();
  if (options.signals) options.signals.trigger = (signal) => handlers.forEach((handler) => handler(signal));
  const io: CliIo = {
    stdin: stdin instanceof PassThrough ? stdin : stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    stderrIsTTY: options.tty ?? false,
    onSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
  const code = await runMain(argv, io);
  // Writes still queued in runMain's guarded stderr (commander's hint after its error line) reach
  // the streams before the process exits (cli/main.ts exits on beforeExit); let them here too.
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
