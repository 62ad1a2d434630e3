// The `verify` verb decides once, before reading any file, whether it checks one pair or a
// sharded run's index, and refuses options that mix the two, naming the CLI's flags.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { verify } from "../../src/verbs/verify.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-verb-verify-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the verify verb", () => {
  it.each([
    [{}, "verify needs --manifest (one pair) or --index (a sharded run's index)"],
    [{ expectIndexSha256: "0".repeat(64) }, "--expect-index-sha256 needs --index"],
    [{ index: "i.json", manifest: "m.json" }, "--index checks every pair it lists: do not combine it with --manifest, --export or --expect-manifest-sha256"],
    [{ index: "i.json", export: "e.json" }, "--index checks every pair it lists: do not combine it with --manifest, --export or --expect-manifest-sha256"],
    [{ index: "i.json", refuseAllowlisted: true }, "--no-allowlisted checks one pair (--manifest): it is not supported with --index"],
  ])("refuses %j before reading anything", async (options, message) => {
    const refused = verify({ ...options, cwd: dir });
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(message);
  });

  it("checks one pair, or an index, as the options say (files that are not there are unreadable, not refused)", async () => {
    const pair = await verify({ manifest: "m.json", cwd: dir });
    expect(pair.kind).toBe("pair");
    expect(pair.result.readable).toBe(false);
    const index = await verify({ index: "i.json", cwd: dir });
    expect(index.kind).toBe("index");
    expect(index.result.readable).toBe(false);
  });
});
