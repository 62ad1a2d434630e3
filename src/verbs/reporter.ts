// What a verb needs of the world besides its settings. The CLI passes one over the process's
// streams; a library caller passes its own. A verb never touches `process` for any of these.
import type { Readable } from "node:stream";
import type { SettingLabels } from "./canary-settings.js";

/** Where a verb's progress, warnings and output go. */
export interface Reporter {
  /** The verb's result stream (the CLI's stdout); resolves once the text was taken. */
  readonly output: (text: string | Uint8Array) => Promise<void>;
  /** Diagnostic text (the CLI's stderr): whole lines, each ending in a newline; resolves once taken. */
  readonly diagnostic: (text: string) => Promise<void>;
  /** One operational warning (no prefix, no newline), from a callback that cannot wait. */
  readonly warn: (message: string) => void;
  /** Diagnostic text written at once and whole, not waited for (CI annotations, a service's log lines). */
  readonly write: (text: string) => void;
  /** Items done of total, during a long run. */
  readonly progress: (done: number, total: number) => void;
  /** The run's progress is over (called before the run's last diagnostics; later progress is ignored). */
  readonly finishProgress: () => void;
  /** The verb is about to read its input from `stdin` (the CLI hints when that is a terminal). */
  readonly readingStdin: () => Promise<void>;
}

/** The world a verb runs in. */
export interface VerbIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
  /** How refusals name the settings: the CLI passes FLAG_LABELS; default OPTION_LABELS. */
  readonly labels?: SettingLabels;
  readonly reporter: Reporter;
}
