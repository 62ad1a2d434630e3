// ScratchFile: append (text and bytes), seal, read back in chunks, remove; where and how it is made.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "vite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCRATCH_SUFFIX, ScratchFile, ScratchFileError, scratchPathFor } from "../../src/publish/scratch-file.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-scratch-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(file: ScratchFile): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of file.chunks()) parts.push(chunk);
  return Buffer.concat(parts);
}

describe("ScratchFile", () => {
  it("a hidden .spool name beside the target, created with mode 0600", async () => {
    const target = join(dir, "manifest.json");
    expect(scratchPathFor(target, "records")).toMatch(new RegExp(`^${dir}/\\.manifest\\.json\\.[0-9a-f]{12}\\.records\\${SCRATCH_SUFFIX}$`));
    const file = await ScratchFile.create(target, "records");
    expect(file.path.startsWith(`${dir}/.manifest.json.`)).toBe(true);
    expect(file.path.endsWith(".records.spool")).toBe(true);
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
    await file.remove();
  });

  it("appended text and bytes come back in order, in chunks of at most a megabyte", async () => {
    const file = await ScratchFile.create(join(dir, "t"), "x");
    const expected: Buffer[] = [];
    for (let i = 0; i < 300; i++) {
      const piece = `${i}:${"é".repeat(4_000)}€;`;
      expected.push(Buffer.from(piece));
      await file.append(i % 2 === 0 ? piece : new Uint8Array(Buffer.from(piece)));
    }
    // Bytes the caller reuses afterwards are not affected: append copies them.
    const reused = Buffer.from("tail");
    await file.append(reused);
    reused.fill(0);
    expected.push(Buffer.from("tail"));
    const whole = Buffer.concat(expected);
    expect(file.size).toBe(whole.byteLength);
    await file.seal();
    const sizes: number[] = [];
    for await (const chunk of file.chunks()) sizes.push(chunk.byteLength);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1 << 20);
    expect(sizes.length).toBeGreaterThan(1);
    expect((await readAll(file)).equals(whole)).toBe(true);
    expect((await readFile(file.path)).equals(whole)).toBe(true);
    await file.remove();
  });

  it("no append after seal, no read before it; remove is safe twice and leaves nothing", async () => {
    const file = await ScratchFile.create(join(dir, "t"), "x");
    await file.append("abc");
    await expect(readAll(file)).rejects.toBeInstanceOf(ScratchFileError);
    await file.seal();
    await expect(file.append("more")).rejects.toBeInstanceOf(ScratchFileError);
    await file.remove();
    await file.remove();
    expect(existsSync(file.path)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
    // Removed before sealing: the open handle is closed and the file deleted too.
    const open = await ScratchFile.create(join(dir, "t"), "y");
    await open.append("pending");
    await open.remove();
    expect(await readdir(dir)).toEqual([]);
  });

  it("a file truncated on disk is an error when read back, never short data", async () => {
    const file = await ScratchFile.create(join(dir, "t"), "x");
    await file.append("0123456789");
    await file.seal();
    await truncate(file.path, 4);
    await expect(readAll(file)).rejects.toThrow(/shorter than what was written/);
    await file.remove();
  });

  it("a directory that does not exist is a ScratchFileError (code io) naming the path", async () => {
    const error = await ScratchFile.create(join(dir, "missing", "t"), "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScratchFileError);
    expect(error).toMatchObject({ code: "io", message: expect.stringMatching(/could not create the scratch file .*missing.*\(ENOENT\)/) });
  });

  it("a process that ends through process.exit (a forced exit) leaves no scratch file behind", async () => {
    // The source is bundled with Vite into a small script run by a real child process.
    const outDir = await mkdtemp(join(tmpdir(), "lc-scratch-bundle-"));
    try {
      const entry = join(outDir, "entry.ts");
      const module = resolve(import.meta.dirname, "../../src/publish/scratch-file.ts");
      await writeFile(
        entry,
        `import { ScratchFile } from ${JSON.stringify(module)};
        const file = await ScratchFile.create(process.argv[2], "x");
        await file.append("data");
        await ScratchFile.create(process.argv[2], "y");
        console.log(file.path);
        process.exit(3);\n`,
      );
      await build({
        root: resolve(import.meta.dirname, "../.."),
        configFile: false,
        logLevel: "silent",
        ssr: { noExternal: true },
        build: { ssr: entry, outDir: join(outDir, "out"), minify: false, target: "node20", rollupOptions: { output: { format: "es" } } },
      });
      const child = spawnSync(process.execPath, [join(outDir, "out", "entry.js"), join(dir, "target")], { encoding: "utf8" });
      expect(child.stderr).toBe("");
      expect(child.status).toBe(3);
      expect(child.stdout).toContain(".target.");
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});
