// The manifest pin is named the way its caller named it: `expectManifestSha256` for a library
// call, `--expect-manifest-sha256` for the CLI, in the refusal of a bad pin and in the mismatch.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { verifyExport, verifyFiles, verifyShardIndex } from "../../src/verify/index.js";
import { UsageError } from "../../src/core/errors.js";
import { runCli } from "../support/cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-pin-"));
  await writeFile(join(dir, "m.json"), "{}");
});

describe("the pin's name in verify messages", () => {
  it("a library call with a malformed pin is refused naming expectManifestSha256, not the CLI flag", async () => {
    const call = verifyFiles({ manifest: "m.json", cwd: dir, expectManifestSha256: "abc" });
    await expect(call).rejects.toThrow(new UsageError("expectManifestSha256 must be 64 hex digits"));
  });

  it("a library call whose manifest does not hash to the pin names expectManifestSha256 in the problem", async () => {
    const result = await verifyFiles({ manifest: "m.json", cwd: dir, expectManifestSha256: "0".repeat(64) });
    const mismatch = result.problems.find((p) => p.code === "manifest_sha256");
    expect(mismatch?.message).toBe("manifest sha256 does not match expectManifestSha256");
    expect(result.problems.every((p) => !p.message.includes("--expect-manifest-sha256"))).toBe(true);
  });

  it("the CLI still names its flag", async () => {
    const bad = await runCli(["verify", "--manifest", "m.json", "--expect-manifest-sha256", "abc"], { cwd: dir });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain("--expect-manifest-sha256 must be 64 hex digits");
    const mismatch = await runCli(["verify", "--manifest", "m.json", "--expect-manifest-sha256", "0".repeat(64), "--json"], { cwd: dir });
    expect(mismatch.stdout).toContain("manifest sha256 does not match --expect-manifest-sha256");
  });

  it("a pin given as undefined (an unset environment variable) is refused, never verified unpinned; null asks for no pin", async () => {
    const unset = verifyFiles({ manifest: "m.json", cwd: dir, expectManifestSha256: process.env["LC_TEST_PIN_THAT_IS_NEVER_SET"] });
    await expect(unset).rejects.toThrow(/^expectManifestSha256 was given as undefined \(an unset environment variable\?\)/);
    const unpinned = await verifyFiles({ manifest: "m.json", cwd: dir, expectManifestSha256: null });
    expect(unpinned.pinned).toBe(false);
    const index = verifyShardIndex({ index: "m.json", cwd: dir, expectIndexSha256: undefined });
    await expect(index).rejects.toThrow(/^expectIndexSha256 was given as undefined/);
  });

  it("a pin on the options' prototype or behind a getter is read as a pin, never dropped", async () => {
    const wrong = "0".repeat(64);
    const inherited = Object.assign(Object.create({ expectManifestSha256: wrong }) as object, { manifest: "m.json", cwd: dir });
    const viaPrototype = await verifyFiles(inherited as never);
    expect(viaPrototype.pinned).toBe(true);
    expect(viaPrototype.problems.map((p) => p.code)).toContain("manifest_sha256");
    class Options {
      readonly manifest = "m.json";
      readonly cwd = dir;
      get expectManifestSha256(): string {
        return wrong;
      }
    }
    const viaGetter = await verifyFiles(new Options() as never);
    expect(viaGetter.pinned).toBe(true);
    expect(viaGetter.consistent).toBe(false);
  });

  it("a pin set on Object.prototype (prototype pollution) is refused, not read as the caller's pin; one the call passes still wins", async () => {
    const polluted = Object.prototype as Record<string, unknown>;
    polluted.expectManifestSha256 = "0".repeat(64);
    polluted.expectIndexSha256 = "0".repeat(64);
    try {
      await expect(verifyFiles({ manifest: "m.json", cwd: dir })).rejects.toThrow(/^expectManifestSha256 is set on Object\.prototype, not by this call/);
      await expect(verifyShardIndex({ index: "m.json", cwd: dir })).rejects.toThrow(/^expectIndexSha256 is set on Object\.prototype/);
      // Passed by the call (own, or on its own prototype), the pin is the call's.
      const own = await verifyFiles({ manifest: "m.json", cwd: dir, expectManifestSha256: null });
      expect(own.pinned).toBe(false);
      const inherited = Object.assign(Object.create({ expectManifestSha256: null }) as object, { manifest: "m.json", cwd: dir });
      expect((await verifyFiles(inherited as never)).pinned).toBe(false);
    } finally {
      delete polluted.expectManifestSha256;
      delete polluted.expectIndexSha256;
    }
  });

  it("a misspelt pin behind a getter or on a prototype is refused as an own one is; an options class's other members are not", async () => {
    const misspelt = new UsageError(`unknown verifyFiles option "expectManifestSHA256"; did you mean 'expectManifestSha256'?`);
    class Getter {
      readonly manifest = "m.json";
      readonly cwd = dir;
      get expectManifestSHA256(): string {
        return "0".repeat(64);
      }
    }
    await expect(verifyFiles(new Getter() as never)).rejects.toThrow(misspelt);
    const inherited = Object.assign(Object.create({ expectManifestSHA256: "0".repeat(64) }) as object, { manifest: "m.json", cwd: dir });
    await expect(verifyFiles(inherited as never)).rejects.toThrow(misspelt);
    class WithHelpers {
      readonly manifest = "m.json";
      readonly cwd = dir;
      describe(): string {
        return "an options object with a method of its own";
      }
    }
    expect((await verifyFiles(new WithHelpers() as never)).pinned).toBe(false);
  });

  it("a misspelt pin option is refused, never verified unpinned", async () => {
    const call = verifyFiles({ manifest: "m.json", cwd: dir, expectManifestSHA256: "0".repeat(64) } as never);
    await expect(call).rejects.toThrow(new UsageError(`unknown verifyFiles option "expectManifestSHA256"; did you mean 'expectManifestSha256'?`));
  });

  it("options of the wrong type are a UsageError naming the option: refuseAllowlisted 'true' or 1 is never read as false", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ manifest: 5 }, "manifest must be a non-empty path string"],
      [{ manifest: "m.json", export: 5 }, "export must be a non-empty path string"],
      [{ manifest: "m.json", cwd: 5 }, "cwd must be a path string"],
      [{ manifest: "m.json", refuseAllowlisted: "true" }, "refuseAllowlisted must be true or false"],
      [{ manifest: "m.json", refuseAllowlisted: 1 }, "refuseAllowlisted must be true or false"],
      [{ manifest: "m.json", onProgress: 5 }, "onProgress must be a function"],
      [{ manifest: "m.json", onStrictRead: "x" }, "onStrictRead must be a function"],
      [{ manifest: "m.json", pinName: "" }, "pinName must be a non-empty string"],
    ];
    for (const [options, words] of cases) {
      await expect(verifyFiles({ cwd: dir, ...options } as never), words).rejects.toThrow(new UsageError(words));
    }
    expect(() => verifyExport({}, {}, { refuseAllowlisted: "true" } as never)).toThrow(new UsageError("refuseAllowlisted must be true or false"));
  });

  it("null stands for an option not given, and cwd '' for the process's directory, as before the checks", async () => {
    const result = await verifyFiles({
      manifest: "m.json",
      cwd: dir,
      export: null,
      pinName: null,
      refuseAllowlisted: null,
      onProgress: null,
      onStrictRead: null,
    } as never);
    expect(result.readable).toBe(true);
    const here = process.cwd();
    try {
      process.chdir(dir);
      expect((await verifyFiles({ manifest: "m.json", cwd: "" })).readable).toBe(true);
    } finally {
      process.chdir(here);
    }
  });

  it("an onProgress that throws makes verifyFiles reject with its own error, not report unreadable files", async () => {
    const boom = new Error("progress display failed");
    const onProgress = (): void => {
      throw boom;
    };
    await expect(verifyFiles({ manifest: "m.json", cwd: dir, onProgress })).rejects.toBe(boom);
  });

  it("a read size that is not a whole number of bytes from 1 to 64 MiB is refused, not reported as unreadable files", async () => {
    for (const chunkBytes of [Number.NaN, 0, -1, 0.5, 1e12, Number.POSITIVE_INFINITY]) {
      await expect(verifyFiles({ manifest: "m.json", cwd: dir, chunkBytes }), String(chunkBytes)).rejects.toThrow(
        new UsageError("chunkBytes must be a whole number of bytes from 1 to 67108864"),
      );
    }
  });
});
