// The VerbIo a command hands its verb: the process's directory, environment and stdin, refusals
// naming the flags, warnings and diagnostics on stderr, output on stdout, progress drawn on a
// terminal's stderr, and the hint a terminal stdin earns. Imported only when a command runs.
import { FLAG_LABELS } from "../src/verbs/canary-settings.js";
import type { VerbIo } from "../src/verbs/reporter.js";
import { hintIfTerminalStdin, writeOut, type CliIo } from "./io.js";
import { createProgress } from "./progress.js";

/** What a command says about its input and its progress. */
export interface VerbIoWording {
  /** The progress line's label (absent: no progress is drawn). */
  readonly progress?: string;
  /** What stdin holds and the other way to give it, for the hint (`the text`, `pass --text`). */
  readonly stdin?: readonly [what: string, alternative: string];
}

/** The command's VerbIo over `io`. */
export function verbIo(io: CliIo, wording: VerbIoWording = {}): VerbIo {
  const progress = wording.progress === undefined ? null : createProgress(io, wording.progress);
  const stdin = wording.stdin;
  return {
    cwd: io.cwd,
    env: io.env,
    stdin: io.stdin,
    labels: FLAG_LABELS,
    reporter: {
      output: (text) => writeOut(io.stdout, text),
      diagnostic: (text) => writeOut(io.stderr, text),
      warn: (message) => {
        // On a terminal the warning takes the progress line's place, and the line is drawn again below it.
        progress?.interrupt();
        io.stderr.write(`warning: ${message}\n`);
      },
      write: (text) => {
        // Whole lines (an endpoint log on stderr among them) must not land on a progress line drawn on a terminal.
        progress?.interrupt();
        io.stderr.write(text);
      },
      progress: (done, total) => progress?.update(done, total),
      finishProgress: () => progress?.finish(),
      readingStdin: () => (stdin === undefined ? Promise.resolve() : hintIfTerminalStdin(io, stdin[0], stdin[1])),
    },
  };
}
