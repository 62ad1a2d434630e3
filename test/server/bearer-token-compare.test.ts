// The token comparison goes through crypto.timingSafeEqual over two SHA-256 digests (32 bytes
// each), for a right and for a wrong token alike: no `===` on the secret, no early exit on length.
import { describe, expect, it, vi } from "vitest";

const seen = vi.hoisted(() => [] as Array<[number, number]>);
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      seen.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { authorize, bearerToken } = await import("../../src/server/bearer-token.js");

describe("the bearer comparison", () => {
  it("calls timingSafeEqual on two 32-byte digests for a right, a short and a long guess", () => {
    const token = bearerToken("0123456789abcdef-token");
    expect(authorize(token, ["Bearer 0123456789abcdef-token"])).toBeNull();
    expect(authorize(token, ["Bearer 0"])).not.toBeNull();
    expect(authorize(token, [`Bearer ${"x".repeat(900)}`])).not.toBeNull();
    expect(seen).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });
});
