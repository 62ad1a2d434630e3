// Whether an output path may be replaced. A command that writes its file over whatever is at its
// path first refuses a file there that is not one of its own earlier outputs, so a slip of the
// argument (a corpus, notes, another run's manifest named as the output) never costs a file. The
// commands differ only in what they recognise as their own and in the two choices of
// EarlierOutputCheck; the rule and the words of its refusal are stated here once.
import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { displayText } from "./display-text.js";
import { UsageError } from "./errors.js";
import { readSmallFile, type SmallFileRead } from "./read-at-most.js";

/** What a command counts as its own earlier output, and how its refusal names the path. */
export interface EarlierOutputCheck {
  /** The words of the refusal before the path: the flag and a colon (`--report:`), or the verb and the flag (`index: --out`). */
  readonly flag: string;
  /** The path as the refusal shows it; default `displayText(path)`. */
  readonly shownPath?: string;
  /** What an earlier output is, as the refusal says it after "is not": `a SARIF log`. */
  readonly what: string;
  /** Words that end the refusal after "it is never replaced", such as `(remove it or name another file)`; default none. */
  readonly hint?: string;
  /** Bytes of the file the recogniser is shown (one more is read, to tell whether that was all of it). */
  readonly headBytes: number;
  /** Whether a file's first bytes (`whole`: they are all of it) are an earlier output of the command. */
  readonly isEarlierOutput: (head: Buffer, whole: boolean) => boolean;
  /**
   * True when only a whole file can be recognised (a document parsed whole): a file longer than
   * `headBytes` is then refused unread, so naming a large input as the output costs no read of it.
   */
  readonly wholeOnly?: boolean;
  /**
   * A regular file that cannot be read (no permission, an I/O error): `"replace"` leaves it to the
   * write, `"refuse"` refuses it, since it cannot be told to be an earlier output.
   */
  readonly unreadable: "replace" | "refuse";
  /**
   * A path that is not a regular file (a directory, a symlink, a pipe): `"replace"` leaves it to
   * the caller's own path checks and the write, `"refuse"` refuses it like any file that is not an
   * earlier output. An empty regular file holds nothing to lose and is always replaced (a script's
   * `--out "$(mktemp)"`).
   */
  readonly notAFile: "replace" | "refuse";
}

/** What is at an existing output path, as far as replacing it goes. */
type Verdict = "replace" | "other" | "unreadable";

/** Decides whether the existing `path` (its `info`) may be replaced, reading at most `check.headBytes` + 1 bytes of it. */
async function examine(path: string, info: Stats, check: EarlierOutputCheck, read: ReadHead): Promise<Verdict> {
  if (!info.isFile()) return check.notAFile === "replace" ? "replace" : "other";
  if (info.size === 0) return "replace";
  if (check.wholeOnly === true && info.size > check.headBytes) return "other";
  const head = await read(path, check.headBytes);
  if (!("bytes" in head)) return check.unreadable === "replace" ? "replace" : "unreadable";
  return check.isEarlierOutput(head.bytes.subarray(0, check.headBytes), head.bytes.length <= check.headBytes) ? "replace" : "other";
}

/** Reads at most `max` + 1 bytes of `path` (readSmallFile); injectable so a test can fail the read. */
export type ReadHead = (path: string, max: number) => Promise<SmallFileRead>;

const readHead: ReadHead = (path, max) => readSmallFile(path, max, () => null);

/**
 * Throws UsageError (`FLAG PATH exists and is not WHAT; it is never replaced HINT`, or "exists and
 * cannot be read, so it cannot be told to be WHAT") unless
 * `path` may be replaced by the command's output: nothing is there (or it cannot be examined: the
 * write then names the problem), or `check.isEarlierOutput` recognises the file's first bytes, or
 * the file is empty, or not a regular file or unreadable and `check` says such a file is replaced.
 * Never echoes the file's content.
 */
export async function refuseToReplaceOtherFile(path: string, check: EarlierOutputCheck, read: ReadHead = readHead): Promise<void> {
  const info = await lstat(path).catch(() => null);
  if (info === null) return;
  const verdict = await examine(path, info, check, read);
  if (verdict === "replace") return;
  const shown = check.shownPath ?? displayText(path);
  const hint = check.hint === undefined ? "" : ` ${check.hint}`;
  // A file that could not be read may be an earlier output: say why it cannot be told to be one.
  const why = verdict === "unreadable" ? `cannot be read, so it cannot be told to be ${check.what}` : `is not ${check.what}`;
  throw new UsageError(`${check.flag} ${shown} exists and ${why}; it is never replaced${hint}`);
}
