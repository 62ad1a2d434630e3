// Where eval lines go: each line is handed to the kernel as soon as it is written, so a run that is
// killed keeps every finished case and visibly lacks its `complete` line.
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../publish/atomic-write.js";

/** A file opened for lines: `write` hands one line to the kernel; `close` flushes to stable storage and closes (safe twice). */
export async function openFileSink(path: string) {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, "w");
  let closed = false;
  return {
    async write(line: string) {
      await handle.write(line, null, "utf8");
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await handle.datasync();
      } finally {
        await handle.close();
      }
    },
  };
}

/** Writes a whole file atomically and durably (the one atomic write), creating its directory. */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, text);
}
