import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tinyGguf } from "../../scripts/tiny-gguf-model.js";

describe("tiny GGUF", () => {
  it("the generated test model is deterministic, so its SHA-256 can be published (docs/embedded.md)", () => {
    const bytes = tinyGguf();
    expect(createHash("sha256").update(bytes).digest("hex")).toBe("486923f3c4250bddaf01c2cd119896f9b358a81dbdeb7f78a75524dbfbd5454b");
    expect(tinyGguf().equals(bytes)).toBe(true);
    expect(tinyGguf({ seed: 19 }).equals(bytes)).toBe(false);
  });

  it("the file is GGUF v3 with 21 F32 tensors (2 layers of 32 dimensions), a vocabulary with the 256 byte tokens, and aligned data", () => {
    const bytes = tinyGguf();
    expect(bytes.subarray(0, 4).toString("ascii")).toBe("GGUF");
    expect(bytes.readUInt32LE(4)).toBe(3);
    expect(Number(bytes.readBigUInt64LE(8))).toBe(3 + 2 * 9);
    expect(Number(bytes.readBigUInt64LE(16))).toBe(22);
    expect(bytes.length % 32).toBe(0);
    expect(bytes.length).toBeGreaterThan(150_000);
    expect(bytes.length).toBeLessThan(200_000);
    for (const byte of ["<0x00>", "<0x0A>", "<0xFF>"]) expect(bytes.includes(Buffer.from(byte))).toBe(true);
    expect(bytes.includes(Buffer.from("tokenizer.chat_template"))).toBe(true);
  });
});
