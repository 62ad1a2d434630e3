// The world as the CLI sees it. Commands receive this instead of touching `process`, so tests
// run them in-process with captured streams, a chosen environment and no TTY.
import { fstatSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { Readable, Writable } from "node:stream";
import { neutraliseCommandLines } from "../src/core/display-text.js";
import { LittleCanaryError } from "../src/core/errors.js";

export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** True when progress may be drawn on stderr. */
  readonly stderrIsTTY: boolean;
  /** True when stdin is a terminal (someone would have to type the input). */
  readonly stdinIsTTY?: boolean;
  /** Registers a handler for SIGINT, SIGTERM and SIGHUP (see INTERRUPTS); returns an unregister function. */
  readonly onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void;
  /**
   * Says that the command about to run takes no interrupts (it registers no onSignal handler):
   * interrupts held since start-up (holdEarlyInterrupts) end the process now, as they would have
   * without the hold, and later ones get Node's default. Absent in tests.
   */
  readonly releaseHeldInterrupts?: () => Promise<void>;
  /**
   * Ends the process now with `code`, for a second Ctrl-C that must not wait for anything.
   * Tests record the call instead; without it, a second interrupt is only reported.
   */
  readonly forceExit?: (code: number) => void;
  /**
   * A path naming the regular file standard output was redirected to (`> out.json`), absent when
   * stdout is a pipe, a terminal or a device: that file is one more file of the run, which no
   * report, cache or log may share (cli/shared-files.ts).
   */
  readonly stdoutFile?: string;
}

/**
 * The signals that interrupt a command as Ctrl-C does. SIGHUP is the closed terminal or ssh
 * session: without a handler it kills the process on the spot, leaving its scratch files and
 * publication lock for the next run to clear, where an interrupted run removes them itself.
 */
export const INTERRUPTS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The conventional exit code of a process ended by `signal` (128 + its number). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGTERM" ? 143 : signal === "SIGHUP" ? 129 : 130;
}

/**
 * An abort signal for a run: the first interrupt (INTERRUPTS) aborts it, a second one ends the process
 * at once (`forceExit`, with the signal's exit code) whatever is still running.
 */
export function abortOnSignals(io: CliIo): { readonly signal: AbortSignal; readonly dispose: () => void } {
  const controller = new AbortController();
  let interrupts = 0;
  const dispose = io.onSignal((signal) => {
    interrupts++;
    if (interrupts === 1) controller.abort();
    else io.forceExit?.(signalExitCode(signal));
  });
  return { signal: controller.signal, dispose };
}

/** How long an interrupt that came before any command took interrupts is held for one to claim it. */
const EARLY_HOLD_MS = 1000;

/** Interrupts held since holdEarlyInterrupts, until a command registers its handler (processIo().onSignal). */
interface HeldInterrupts {
  readonly signals: NodeJS.Signals[];
  readonly listener: (signal: NodeJS.Signals) => void;
  timer: NodeJS.Timeout | null;
}
let held: HeldInterrupts | null = null;

/**
 * Holds interrupts (INTERRUPTS) from now until a command registers its handler, which then gets
 * them in order: without this, a Ctrl-C while the process is still loading the modules a command
 * needs ends it with the signal's code (130), where the command (ingest: "interrupted by SIGINT;
 * nothing written", exit 3) says what it did. A command that takes no interrupts releases them
 * as it starts (releaseHeldInterrupts: the first one held is raised again and ends the process as
 * it would have); should nothing claim or release them, that happens after EARLY_HOLD_MS. Only the
 * entry point (main.ts) calls this.
 */
export function holdEarlyInterrupts(): void {
  if (held !== null) return;
  const state: HeldInterrupts = {
    signals: [],
    timer: null,
    listener: (signal) => {
      state.signals.push(signal);
      // Unreferenced: a finished command's process is not kept alive by it.
      state.timer ??= setTimeout(() => void releaseEarlyInterrupts(), EARLY_HOLD_MS).unref();
    },
  };
  held = state;
  for (const signal of INTERRUPTS) process.on(signal, state.listener);
}

/**
 * Ends the hold: the first interrupt held (if any) is raised again, with Node's default handling
 * from then on, which ends the process even in the middle of synchronous work. A signal the event
 * loop has caught but not yet handed to the listener would be lost if the listener went at once
 * (with the last listener gone, Node drops it), so two turns of the loop pass first (a whole poll
 * phase between them, where such a signal is delivered); nothing else runs meanwhile.
 */
async function releaseEarlyInterrupts(): Promise<void> {
  if (held === null) return;
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  const first = claimEarlyInterrupts()[0];
  if (first !== undefined) raiseAgain(first);
}

/** Raises `signal` again at this process, no listener of ours in the way. */
function raiseAgain(signal: NodeJS.Signals): void {
  try {
    process.kill(process.pid, signal);
  } catch {
    // A platform that cannot send this signal to itself: end as the signal would have.
    process.exit(signalExitCode(signal));
  }
}

/** Ends the hold without acting on what it held (a finished command keeps its result). */
export function dropHeldInterrupts(): void {
  claimEarlyInterrupts();
}

/** The interrupts held so far (none unless holdEarlyInterrupts ran); holding ends. */
function claimEarlyInterrupts(): NodeJS.Signals[] {
  if (held === null) return [];
  const { signals, listener, timer } = held;
  held = null;
  if (timer !== null) clearTimeout(timer);
  for (const signal of INTERRUPTS) process.off(signal, listener);
  return signals;
}

export function processIo(): CliIo {
  return {
    stdin: standardInput(),
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    forceExit: (code) => process.exit(code),
    releaseHeldInterrupts: releaseEarlyInterrupts,
    ...stdoutFile(),
    onSignal(handler) {
      for (const signal of INTERRUPTS) process.on(signal, handler);
      // Interrupts that came before this handler was there are its own: each is handed over once.
      for (const signal of claimEarlyInterrupts()) queueMicrotask(() => handler(signal));
      return () => {
        for (const signal of INTERRUPTS) process.off(signal, handler);
      };
    },
  };
}

/**
 * The process's standard input, or, when it is a directory (`< somedir`), a stream that fails
 * with that as its reason: read as it is, a directory ends at once, and the command would report
 * an empty input rather than what is wrong.
 */
function standardInput(): Readable {
  let directory = false;
  try {
    directory = fstatSync(0).isDirectory();
  } catch {
    // No standard input to inspect (closed): it is read, and fails, as it is.
  }
  if (!directory) return process.stdin;
  return new Readable({
    read() {
      this.destroy(new LittleCanaryError("io", "standard input is a directory; redirect a file (< records.jsonl) or pass the file's path"));
    },
  });
}

/** `/dev/fd/1` when standard output is a regular file (its identity is that file's), else nothing. */
function stdoutFile(): { stdoutFile?: string } {
  if (process.platform === "win32") return {};
  try {
    return fstatSync(1).isFile() ? { stdoutFile: "/dev/fd/1" } : {};
  } catch {
    return {};
  }
}

/**
 * A command about to read its input from a terminal would otherwise wait in silence: say what
 * it is waiting for and how to end or avoid it. `alternative` names the other way to give input.
 */
export async function hintIfTerminalStdin(io: CliIo, what: string, alternative: string): Promise<void> {
  if (io.stdinIsTTY !== true) return;
  await writeOut(io.stderr, `reading ${what} from stdin (a terminal): type it and end with Ctrl-D, or pipe it in, or ${alternative}\n`);
}

/**
 * The CLI's stderr writer: `target`, with every message passed through `neutraliseCommandLines`,
 * so no line a message holds after its first one can start a CI workflow command (`::error`,
 * `::add-mask::`…), whatever a path or id interpolated into it contained. Each write is one
 * message; the CI annotations, which are meant to be commands, are written one per write. Errors
 * of `target` (a closed pipe) become errors of the writer, where `watchOutput` sees them.
 */
export function commandSafeStderr(target: Writable): Writable {
  const decoder = new StringDecoder("utf8");
  const guarded = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      target.write(neutraliseCommandLines(text), (error) => callback(error ?? undefined));
    },
  });
  target.on("error", (error: Error) => guarded.destroy(error));
  return guarded;
}

/**
 * The output did not reach its reader: the reader of stdout (or stderr) went away before the
 * output was complete (`… | head -c 100` closed the pipe: EPIPE), or the write itself failed
 * (stdout redirected to a full disk: ENOSPC, or EIO, EFBIG…). The command's result never
 * reached its reader, so this is a failure with the command's refused exit code, never 0
 * (success) or 1 (detections), and its message names the stream and the error code.
 */
export class OutputClosedError extends LittleCanaryError {
  override readonly name = "OutputClosedError";
  /**
   * True when the command had already committed its result (ingest's published pair) before the
   * output failed: not a refusal, so it exits with its own code (exit-codes.ts), not "refused".
   */
  readonly afterCommit: boolean;

  constructor(
    readonly streamName: string,
    options?: { cause?: unknown; note?: string; afterCommit?: boolean },
  ) {
    const failedCode = isClosedOutputError(options?.cause) ? null : writeFailureCode(options?.cause);
    const what = failedCode === null ? `${streamName} was closed before all output was written (EPIPE)` : `${streamName} could not be written (${failedCode})`;
    super("io", `${what}: the output is incomplete${options?.note ? `; ${options.note}` : ""}`, options);
    this.afterCommit = options?.afterCommit === true;
  }

  /** The same failure after the command committed its result; `note` says what stands (the published pair). */
  afterCommitted(note: string): OutputClosedError {
    return new OutputClosedError(this.streamName, { cause: this.cause, note, afterCommit: true });
  }
}

/** Errors a write gets once the reader has closed the pipe, or once the stream was destroyed for it. */
export function isClosedOutputError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || code === "ERR_STREAM_WRITE_AFTER_END" || code === "ECONNRESET";
}

/** The system error code of a failed write (`ENOSPC`, `EIO`…), or null for anything else. */
function writeFailureCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z0-9]{2,15}$/.test(code) ? code : null;
}

const watchedNames = new WeakMap<Writable, { name: string; failure: Error | null }>();

/**
 * Watches an output stream for the whole run: a closed pipe then surfaces as an error event that
 * is recorded here instead of crashing the process with a stack trace (an 'error' event without
 * a listener is thrown). Returns the first error the stream reported, if any.
 */
export function watchOutput(stream: Writable, name: string): { failure(): Error | null } {
  let entry = watchedNames.get(stream);
  if (entry === undefined) {
    const created = { name, failure: null as Error | null };
    watchedNames.set(stream, created);
    stream.on("error", (error: Error) => {
      created.failure ??= error;
    });
    entry = created;
  }
  const watched = entry;
  return { failure: () => watched.failure };
}

/** Writes and waits until the stream accepted the data (so exit codes never cut output short). */
export function writeOut(stream: Writable, text: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => {
      const watched = watchedNames.get(stream);
      if (watched) watched.failure ??= error;
      const outputFailed = isClosedOutputError(error) || writeFailureCode(error) !== null;
      reject(outputFailed ? new OutputClosedError(watched?.name ?? "output", { cause: error }) : error);
    };
    if (stream.destroyed || stream.writableEnded) {
      fail(Object.assign(new Error("write after the stream was closed"), { code: "ERR_STREAM_DESTROYED" }));
      return;
    }
    stream.write(text, (error) => (error ? fail(error) : resolve()));
  });
}

/** Like writeOut, for last words (an error line): a closed stream is ignored, never thrown. */
export async function writeLastWords(stream: Writable, text: string): Promise<void> {
  try {
    await writeOut(stream, text);
  } catch {
    // Nobody is reading: there is nowhere left to report to.
  }
}
