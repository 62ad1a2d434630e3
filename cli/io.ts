// The world as the CLI sees it. Commands receive this instead of touching `process`, so tests
// run them in-process with captured streams, a chosen environment and no TTY.
import type { Readable, Writable } from "node:stream";

export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** True when progress may be drawn on stderr. */
  readonly stderrIsTTY: boolean;
  /** Registers a handler for SIGINT/SIGTERM; returns an unregister function. */
  readonly onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void;
}

export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
    onSignal(handler) {
      process.on("SIGINT", handler);
      process.on("SIGTERM", handler);
      return () => {
        process.off("SIGINT", handler);
        process.off("SIGTERM", handler);
      };
    },
  };
}

/** Colour only on a TTY and never when NO_COLOR is set (any value, per no-color.org). */
export function useColor(io: CliIo): boolean {
  return io.stderrIsTTY && io.env.NO_COLOR === undefined;
}

/** Writes and waits until the stream accepted the data (so exit codes never cut output short). */
export function writeOut(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
