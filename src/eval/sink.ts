// Where eval lines go: each line is handed to the kernel as soon as it is written, so a run that is
// killed keeps every finished case and visibly lacks its `complete` line. Every failure names the
// flag and the file (`--output: cannot write F (ENOSPC)`), never "unexpected failure".
import { mkdir, open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { displayText } from "../core/display-text.js";
import { errnoCode, LittleCanaryError } from "../core/errors.js";
import { specialFileKind } from "../core/file-identity.js";
import { writeFileAtomic } from "../publish/atomic-write.js";

/** `flag: cannot write F (why)`, the one wording of an output file that failed. */
function cannotWrite(flag: string, path: string, why: string, cause?: unknown): LittleCanaryError {
  return new LittleCanaryError("io", `${flag}: cannot write ${displayText(path)} (${why})`, cause === undefined ? undefined : { cause });
}

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

/** A file opened for lines: `write` hands one line to the kernel; `close` flushes to stable storage and closes (safe twice). */
export async function openFileSink(flag: string, path: string) {
  const handle = await naming(flag, path, async () => {
    await mkdir(dirname(path), { recursive: true });
    return open(path, "w");
  });
  let closed = false;
  return {
    async write(line: string) {
      await naming(flag, path, () => handle.write(line, null, "utf8"));
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await naming(flag, path, () => handle.datasync());
      } finally {
        await handle.close();
      }
    },
  };
}

/** Writes `flag`'s whole file atomically and durably (the one atomic write), creating its directory. */
export async function writeFileAtomically(flag: string, path: string, text: string): Promise<void> {
  await naming(flag, path, async () => {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, text);
  });
}
