import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LittleCanaryError } from "../../src/core/errors.js";
import { DEFAULT_READER_LIMITS } from "../../src/documents/reader-limits.js";
import { fromFile, fromNodeStream, READ_CHUNK_BYTES } from "../../src/jsonl/sources.js";
import { readRecords, fromBytes } from "../support/jsonl-reads.js";

async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
}

describe("byte sources", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "lc-jsonl-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads a file in chunks of at most 64 KiB, byte for byte", async () => {
    const path = join(dir, "big.jsonl");
    const bytes = Buffer.alloc(3 * READ_CHUNK_BYTES + 17, 0x61);
    await writeFile(path, bytes);
    const chunks = await collect(fromFile(path));
    expect(chunks.every((c) => c.byteLength <= READ_CHUNK_BYTES)).toBe(true);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it("turns a missing file into an io error with a stable code", async () => {
    const error = await collect(fromFile(join(dir, "missing.jsonl"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LittleCanaryError);
    expect((error as LittleCanaryError).code).toBe("io");
    expect((error as Error).message).toMatch(/ENOENT/);
  });

  it("reads stdin-like streams and refuses a stream with an encoding set", async () => {
    const stream = Readable.from([Buffer.from('{"text":"a"}\n'), Buffer.from('"b"')]);
    const outcome = await readRecords(fromNodeStream(stream), { kind: "screen", limits: DEFAULT_READER_LIMITS });
    expect(outcome.ok && outcome.records.map((r) => r.text)).toEqual(["a", "b"]);

    const text = new PassThrough();
    text.setEncoding("utf8");
    text.end('"a"\n');
    await expect(readRecords(fromNodeStream(text), { kind: "screen", limits: DEFAULT_READER_LIMITS })).rejects.toThrow(/do not set an encoding/);
  });

  it("stops reading a stream as soon as the input is refused", async () => {
    const stream = new PassThrough();
    stream.write(Buffer.from([0xef, 0xbb, 0xbf, 0x22, 0x22, 0x0a]));
    const outcome = await readRecords(fromNodeStream(stream), { kind: "ingest", limits: DEFAULT_READER_LIMITS });
    expect(outcome.ok ? null : outcome.refusal.code).toBe("bom");
    expect(stream.destroyed).toBe(true);
  });

  it("splits in-memory bytes and encodes strings as UTF-8", async () => {
    const chunks = await collect(fromBytes("caf\u00e9", 2));
    expect(chunks.map((c) => Array.from(c))).toEqual([[0x63, 0x61], [0x66, 0xc3], [0xa9]]);
    await expect(collect(fromBytes("x", 0))).rejects.toThrow(/positive integer/);
  });
});

describe("a regular input file holds the bytes it held when opened", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "lc-jsonl-grow-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Reads `path`, calling `between` after each chunk; the bytes read, or the error's code and message. */
  async function readWith(path: string, between: (chunk: number) => Promise<void>): Promise<number | { code: string; message: string }> {
    let bytes = 0;
    let chunks = 0;
    try {
      for await (const chunk of fromFile(path)) {
        bytes += chunk.byteLength;
        await between(chunks++);
      }
      return bytes;
    } catch (error) {
      return { code: (error as LittleCanaryError).code, message: (error as Error).message };
    }
  }

  const size = 2 * READ_CHUNK_BYTES + 100;

  it("a file left alone is read whole", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, Buffer.alloc(size, 0x61));
    expect(await readWith(path, async () => undefined)).toBe(size);
  });

  it("a file appended to while it is read is refused (input_refused), naming its size when opened", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, Buffer.alloc(size, 0x61));
    const { appendFile } = await import("node:fs/promises");
    const result = await readWith(path, (chunk) => (chunk === 0 ? appendFile(path, '{"text":"half a rec') : Promise.resolve()));
    expect(result).toEqual({ code: "input_refused", message: expect.stringContaining(`changed while it was read: it held ${size} bytes when opened`) });
  });

  it("a file cut short while it is read is refused the same way", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, Buffer.alloc(size, 0x61));
    const { truncate } = await import("node:fs/promises");
    const result = await readWith(path, (chunk) => (chunk === 0 ? truncate(path, READ_CHUNK_BYTES + 10) : Promise.resolve()));
    expect(result).toMatchObject({ code: "input_refused" });
  });
});
