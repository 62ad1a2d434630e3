// Where eval lines go: each line is handed to the kernel as soon as it is written, so a run that is
// killed keeps every finished case and visibly lacks its `complete` line. Lines are written whole:
// a write that fails part-way (a full disk) is cut back to the last whole line, so the record never
// ends in a torn line that a JSONL reader would take for a damaged file. Every failure names the
// flag and the file (`--output: cannot write F (ENOSPC)`), never "unexpected failure".
import { mkdir, open, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { displayText } from "../core/display-text.js";
import { errnoCode, LittleCanaryError } from "../core/errors.js";
import { specialFileKind } from "../core/file-identity.js";
import { refuseToReplaceOtherFile } from "../core/replace-guard.js";
import { writeFileAtomic } from "../publish/atomic-write.js";

/** `flag: cannot write F (why)`, the one wording of an output file that failed. */
function cannotWrite(flag: string, path: string, why: string, cause?: unknown): LittleCanaryError {
  return new LittleCanaryError("io", `${flag}: cannot write ${displayText(path)} (${why})`, cause === undefined ? undefined : { cause });
}

/** The run record opened for writing: one system call per method, so a test can fail any one of them. */
export interface RecordFile {
  /** Writes up to `length` bytes of `data` from `offset` at file `position`; may write fewer, as write(2) may. */
  write(data: Uint8Array, offset: number, length: number, position: number): Promise<{ readonly bytesWritten: number }>;
  truncate(length: number): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

/** The file operations of eval's outputs, injectable (production: Node's); fault tests wrap them. */
export interface EvalFs {
  /** Opens `path` for writing, created or truncated (the run record). */
  openRecord(path: string): Promise<RecordFile>;
  /** Removes a file (an earlier run's report). */
  unlink(path: string): Promise<void>;
}

export const nodeEvalFs: EvalFs = {
  openRecord: (path) => open(path, "w"),
  unlink: (path) => unlink(path),
};

/**
 * Refuses, before anything runs, an output path that cannot take a whole file: a directory, or
 * a named pipe or device (opening one waits for a reader, and it takes no fsync).
 */
export async function checkOutputPath(flag: string, path: string): Promise<void> {
  if ((await stat(path).catch(() => null))?.isDirectory()) throw cannotWrite(flag, path, "it is a directory");
  // Followed: the lines are written through a symlink into what it leads to (`>(cmd)` is one).
  const special = await specialFileKind(path, { follow: true });
  if (special !== null) throw cannotWrite(flag, path, `it is ${special}, not a regular file`);
}

/** Runs one file operation of `flag`'s file; its failure is that flag's `cannot write` error. */
async function naming<T>(flag: string, path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw cannotWrite(flag, path, errnoCode(error) ?? "error", error);
  }
}

/**
 * A file opened for lines: `write` hands one whole line to the kernel (looping over short writes);
 * `close` flushes to stable storage and closes (safe twice). After a failed write the file holds
 * only whole lines and takes no more.
 */
export async function openFileSink(flag: string, path: string, fs: EvalFs = nodeEvalFs) {
  const handle = await naming(flag, path, async () => {
    await mkdir(dirname(path), { recursive: true });
    return fs.openRecord(path);
  });
  // Bytes of whole lines in the file: where the next line starts, and where a torn one is cut back to.
  let whole = 0;
  let failed: LittleCanaryError | null = null;
  let closed = false;
  return {
    async write(line: string) {
      if (failed !== null) throw failed;
      const bytes = Buffer.from(line, "utf8");
      let done = 0;
      let stalled = false;
      try {
        while (done < bytes.length) {
          const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, whole + done);
          // A write that makes no progress would loop for ever: taken as the failure it is.
          if (!(bytesWritten > 0)) {
            stalled = true;
            throw new Error("a write made no progress");
          }
          done += bytesWritten;
        }
      } catch (error) {
        // A disk that filled mid-line kept part of it: cut back, so the file ends with a whole line.
        const cut =
          done === 0 ||
          (await handle.truncate(whole).then(
            () => true,
            () => false,
          ));
        const why = `${stalled ? "no byte written" : (errnoCode(error) ?? "error")}; ${cut ? "it keeps only whole lines" : "its last line may be incomplete"} and has no completion line`;
        failed = cannotWrite(flag, path, why, error);
        throw failed;
      }
      whole += bytes.length;
    },
    async close() {
      if (closed) return;
      closed = true;
      // After a failed write the run already fails with that error; a flush would only hide it.
      if (failed !== null) {
        await handle.close().catch(() => undefined);
        return;
      }
      try {
        await naming(flag, path, () => handle.datasync());
      } finally {
        await handle.close();
      }
    },
  };
}

/** What every eval report holds near its start (report.ts): how an earlier report is told from any other file. */
const REPORT_MARK = "<title>little-canary eval report</title>";
/** Bytes of an existing file read to find REPORT_MARK. */
const REPORT_SNIFF_BYTES = 4096;

/**
 * Refuses, before anything runs, a `flag` path (the report) that holds a file other than an
 * earlier eval report: that file is removed once the run starts (removeEarlierOutput), and a slip
 * of the argument must never delete a corpus, notes or another run's files. A file that cannot be
 * read is refused (it cannot be told to be a report); absent, empty and non-regular paths are left
 * to checkOutputPath and the write.
 */
export async function refuseToReplaceNonReport(flag: string, path: string): Promise<void> {
  await refuseToReplaceOtherFile(path, {
    flag: `${flag}:`,
    what: "a little-canary eval report",
    hint: "(remove it or name another file)",
    headBytes: REPORT_SNIFF_BYTES,
    isEarlierOutput: (head) => head.toString("utf8").includes(REPORT_MARK),
    unreadable: "refuse",
    notAFile: "replace",
  });
}

/**
 * Removes the report an earlier run left at `flag`'s path, if any (refuseToReplaceNonReport checked
 * it is one). Called once the new run record is open, so from then on the earlier record is gone
 * and its report must not stay beside a record of another run (an interrupted or failed run writes
 * no report); a record that cannot be opened leaves both as they were.
 */
export async function removeEarlierOutput(flag: string, path: string, fs: EvalFs = nodeEvalFs): Promise<void> {
  await naming(flag, path, () => fs.unlink(path).catch((error: unknown) => (errnoCode(error) === "ENOENT" ? undefined : Promise.reject(error))));
}

/** Writes `flag`'s whole file atomically and durably (the one atomic write), creating its directory. */
export async function writeFileAtomically(flag: string, path: string, text: string): Promise<void> {
  await naming(flag, path, async () => {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, text);
  });
}
