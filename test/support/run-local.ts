// Runs the CLI in-process through runMain with output that can be watched while the command
// runs (serve logs its bound port on stderr before it is stopped).
import { Readable, Writable } from "node:stream";
import type { CliIo } from "../../cli/io.js";
import { runMain } from "../../cli/program.js";

class LiveCapture extends Writable {
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

/**
 * Runs `little-canary <argv>` through the real runMain (cli/program.ts) with watchable output,
 * so serve/demo are tested exactly as users run them.
 */
export function runLocal(argv: readonly string[], options: { env?: Record<string, string | undefined> } = {}): LocalRun {
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
  const done = runMain(argv, io);
  return { stdout, stderr, signal: (signal = "SIGINT") => handlers.forEach((handler) => handler(signal)), done };
}
