// Where eval lines go. The file sink creates parent directories, truncates the file, and hands
// each line to the kernel as soon as it is written (no user-space buffering), so a run that is
// killed keeps every finished case and visibly lacks its `complete` line.
import { mkdir, open, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export interface LineSink {
  write(line: string): Promise<void>;
  /** Flushes to stable storage and closes; safe to call twice. */
  close(): Promise<void>;
}

export async function openFileSink(path: string): Promise<LineSink> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, "w");
  let closed = false;
  return {
    async write(line) {
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

/** Writes a whole file via a temporary sibling and a rename, so readers never see half a page. */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, "utf8");
  await rename(temporary, path);
}
