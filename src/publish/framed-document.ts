// A canonical document whose one large array was spooled to a scratch file: the frame around the
// array (`canonicalObjectFrame`) plus the items joined by ",". Its SHA-256 is computed by reading
// the spool once, so the export can name its manifest's digest before either is written; every
// copy-out hashes again and fails if the bytes differ, so a spool changed on disk in between is
// never published under the digest computed first.
import { createHash } from "node:crypto";
import type { CanonicalFrame } from "../core/canonical.js";
import { ScratchFile, ScratchFileError } from "./scratch-file.js";

/**
 * The items of one array, appended as they become final (each item's canonical text) and joined
 * by ",": in a scratch file (`create`), or in memory (`new ArraySpool()`, for `ingestRecords`:
 * the same items framed and hashed the same way, without a scratch file).
 */
export class ArraySpool implements SpooledBytes {
  private items = 0;
  private readonly texts: string[] = [];

  constructor(private readonly file: ScratchFile | null = null) {}

  /** An empty spool beside `target` (see ScratchFile for where and how). */
  static async create(target: string, label: string): Promise<ArraySpool> {
    return new ArraySpool(await ScratchFile.create(target, label));
  }

  /** Items appended so far. */
  get count(): number {
    return this.items;
  }

  /** Appends one item's canonical text. */
  async append(itemText: string): Promise<void> {
    if (this.file === null) this.texts.push(itemText);
    else await this.file.append(this.items === 0 ? itemText : `,${itemText}`);
    this.items++;
  }

  /** No more items. */
  async seal(): Promise<void> {
    await this.file?.seal();
  }

  /** The spooled bytes (seal first). */
  async *chunks(options: { readonly reuseBuffer?: boolean } = {}): AsyncGenerator<Buffer> {
    if (this.file === null) yield Buffer.from(this.texts.join(","), "utf8");
    else yield* this.file.chunks(options);
  }

  /** Frees the items (never throws). */
  async remove(): Promise<void> {
    this.texts.length = 0;
    await this.file?.remove();
  }
}

/** A document to copy out: its size, its digest, and a copy that checks both. */
export interface FramedDocument {
  /** Lowercase hex SHA-256 of the document's bytes. */
  readonly sha256: string;
  /** Bytes of the document. */
  readonly size: number;
  /** Writes the document's bytes in order through `write`; throws if they are not the ones hashed. */
  writeTo(write: (chunk: Uint8Array) => Promise<void>): Promise<void>;
}

/** Spooled bytes that can be read back in order, any number of times (an ArraySpool, a sealed ScratchFile). */
export interface SpooledBytes {
  /** The bytes in order; with `reuseBuffer`, each chunk is valid only until the next is asked for. */
  chunks(options?: { readonly reuseBuffer?: boolean }): AsyncGenerator<Buffer>;
}

async function* pieces(prefix: Buffer, items: SpooledBytes, suffix: Buffer): AsyncGenerator<Uint8Array> {
  yield prefix;
  // Every consumer below hashes or writes a chunk (awaited) before it asks for the next one.
  yield* items.chunks({ reuseBuffer: true });
  yield suffix;
}

/**
 * Frames a sealed spool: reads it once to compute the document's digest and size. The spool is
 * usually an ArraySpool (the items of one JSON array); any sealed spool works, for documents
 * that are not JSON (a JUnit report's test cases).
 */
export async function frameDocument(frame: CanonicalFrame, items: SpooledBytes): Promise<FramedDocument> {
  const prefix = Buffer.from(frame.prefix, "utf8");
  const suffix = Buffer.from(frame.suffix, "utf8");
  // One pass over the document: its digest and size, each piece also written when `write` is given.
  const pass = async (write?: (piece: Uint8Array) => Promise<void>) => {
    const hash = createHash("sha256");
    let bytes = 0;
    for await (const piece of pieces(prefix, items, suffix)) {
      hash.update(piece);
      bytes += piece.byteLength;
      await write?.(piece);
    }
    return { sha256: hash.digest("hex"), size: bytes };
  };
  const { sha256, size } = await pass();
  return {
    sha256,
    size,
    async writeTo(write) {
      const copied = await pass(write);
      if (copied.size !== size || copied.sha256 !== sha256) {
        throw new ScratchFileError("a spooled document changed on disk after it was hashed; nothing of it may be published");
      }
    },
  };
}
