// The output paths of a publication and its typed error. Their pre-flight rules are checked by
// the run that owns them, before it reads anything (ingest/target-checks.ts).
import { LittleCanaryError } from "../core/errors.js";

/** The output paths of a run and the input path they must not equal. */
export interface PublishTargets {
  readonly manifestPath: string;
  readonly exportPath: string | null;
  /** The input file, when the input is a file (never published over). */
  readonly inputPath: string | null;
  /**
   * `dev:ino` of the file a streamed input is read from, when it is an open regular file
   * (standard input redirected from a file: `ingest - < records.jsonl`), else null or absent.
   */
  readonly inputInode?: string | null;
  readonly overwrite: boolean;
}

/** Publication failed, or a target path is not usable; the message names the path or the step. */
export class PublishError extends LittleCanaryError {
  override readonly name = "PublishError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("publish", message, options);
  }
}
