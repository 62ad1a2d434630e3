// ArraySpool + frameDocument: the spooled document is byte for byte the one-shot canonical text,
// and a spool altered on disk after framing can never be copied out under the first digest.
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import stringify from "fast-json-stable-stringify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalObjectFrame } from "../../src/core/canonical.js";
import { canonicalObjectWithArray } from "../support/core-text.js";
import { ArraySpool, frameDocument } from "../../src/publish/framed-document.js";
import { ScratchFileError } from "../../src/publish/scratch-file.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-framed-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const json: fc.Arbitrary<unknown> = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const key = fc.string({ unit: "grapheme", maxLength: 8 });

async function copyOut(document: { writeTo(write: (chunk: Uint8Array) => Promise<void>): Promise<void> }): Promise<Buffer> {
  const parts: Buffer[] = [];
  await document.writeTo(async (chunk) => void parts.push(Buffer.from(chunk)));
  return Buffer.concat(parts);
}

describe("ArraySpool and frameDocument", () => {
  it("the framed spool is canonicalObjectWithArray's bytes, with their size and SHA-256 (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, json, { maxKeys: 6 }), key, fc.array(json, { maxLength: 12 }), async (rest, arrayKey, items) => {
        fc.pre(!Object.hasOwn(rest, arrayKey));
        const texts = items.map((item) => stringify(item));
        const expected = Buffer.from(canonicalObjectWithArray(rest, arrayKey, texts), "utf8");
        // And the one-shot text is the serializer's own text of the whole.
        expect(expected.toString("utf8")).toBe(stringify({ ...rest, [arrayKey]: items }));
        const spool = await ArraySpool.create(join(dir, "doc.json"), "items");
        try {
          for (const text of texts) await spool.append(text);
          expect(spool.count).toBe(texts.length);
          await spool.seal();
          const document = await frameDocument(canonicalObjectFrame(rest, arrayKey), spool);
          expect(document.size).toBe(expected.byteLength);
          expect(document.sha256).toBe(createHash("sha256").update(expected).digest("hex"));
          expect((await copyOut(document)).equals(expected)).toBe(true);
        } finally {
          await spool.remove();
        }
      }),
      { numRuns: 80 },
    );
    expect((await readdir(dir)).filter((name) => name.endsWith(".spool"))).toEqual([]);
  }, 60_000);

  it("writeTo throws when the spool was altered on disk after framing", async () => {
    const spool = await ArraySpool.create(join(dir, "doc.json"), "items");
    try {
      for (let i = 0; i < 5; i++) await spool.append(JSON.stringify({ n: i }));
      await spool.seal();
      const document = await frameDocument({ prefix: '{"items":[', suffix: "]}" }, spool);
      const path = (await readdir(dir)).find((name) => name.endsWith(".items.spool")) as string;
      // Same length, one byte changed.
      await writeFile(join(dir, path), `${'{"n":0},{"n":1},{"n":2},{"n":3},{"n":4}'.replace("3", "7")}`);
      const written: Buffer[] = [];
      const error = await document.writeTo(async (chunk) => void written.push(Buffer.from(chunk))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ScratchFileError);
      expect((error as Error).message).toMatch(/changed on disk after it was hashed/);
    } finally {
      await spool.remove();
    }
  });
});
