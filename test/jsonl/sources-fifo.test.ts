// Reading a named pipe by path (`ingest <(cmd)`, `mkfifo`): its bytes arrive as from a file, and
// an abort ends the read whether nobody opened the pipe for writing or a writer holds it open and
// writes nothing. Either wait would otherwise hold the process (and an ingest's lock) forever.
import { execFileSync } from "node:child_process";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { constants } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fromFile } from "../../src/jsonl/sources.js";

let dir: string;
let fifo: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-fifo-"));
  fifo = join(dir, "in.fifo");
  execFileSync("mkfifo", [fifo]);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Reads `source` to its end or its error: the bytes read, and the error's code if it failed. */
async function drain(source: AsyncIterable<Uint8Array>): Promise<{ bytes: Buffer; code: string | null }> {
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of source) chunks.push(chunk);
    return { bytes: Buffer.concat(chunks), code: null };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), code: (error as { code?: string }).code ?? "error" };
  }
}

describe.skipIf(process.platform === "win32")("reading a named pipe", () => {
  it("yields exactly the bytes a writer sends, then ends when it closes", async () => {
    const reading = drain(fromFile(fifo));
    const writer = await open(fifo, constants.O_WRONLY);
    await writer.write('{"text":"one"}\n{"text":"two"}\n');
    await writer.close();
    expect(await reading).toEqual({ bytes: Buffer.from('{"text":"one"}\n{"text":"two"}\n'), code: null });
  });

  it("ends, having read nothing, when aborted while no writer ever opened the pipe", async () => {
    const controller = new AbortController();
    const reading = drain(fromFile(fifo, controller.signal));
    // The open is waiting for a writer; give it time to start waiting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    const { bytes } = await reading;
    expect(bytes.length).toBe(0);
  });

  it("ends when aborted while a writer holds the pipe open and writes nothing", async () => {
    const controller = new AbortController();
    const reading = drain(fromFile(fifo, controller.signal));
    const writer = await open(fifo, constants.O_WRONLY);
    try {
      await writer.write("partial");
      // The reader has the first bytes and now waits on a writer that sends nothing more.
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      const { bytes, code } = await reading;
      expect(bytes.toString()).toBe("partial");
      expect(code).toBe("io");
    } finally {
      await writer.close();
    }
  });

  it("opens nothing when already aborted, and a regular file reads as before without an abort", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await drain(fromFile(fifo, controller.signal))).toEqual({ bytes: Buffer.alloc(0), code: null });
    const file = join(dir, "r.jsonl");
    await writeFile(file, "abc\n");
    expect(await drain(fromFile(file, controller.signal))).toEqual({ bytes: Buffer.alloc(0), code: null });
    expect(await drain(fromFile(file, new AbortController().signal))).toEqual({ bytes: Buffer.from("abc\n"), code: null });
  });
});
