// What ingest can know before --overwrite removes the previous pair, it checks before: an input it
// cannot read, a cache file it cannot write, a target name too long for the scratch files written
// beside it. Each is refused with the pair left as it was (a missing input: ingest-publication.test.ts). The permission cases run the CLI as an
// unprivileged user (root reads and writes whatever the mode bits say).
import { spawn, spawnSync } from "node:child_process";
import { chmod, chown, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { bundleCli, type BundledCli } from "../support/cli-child.js";

const RECORDS = '{"id":"a","text":"hello"}\n';

async function pairIn(dir: string): Promise<{ manifest: string; exported: string }> {
  return { manifest: await readFile(join(dir, "m.json"), "utf8"), exported: await readFile(join(dir, "e.json"), "utf8") };
}

describe("paths checked before anything is removed", () => {
  it("an input path that runs through a file (r.jsonl/x) is refused with --overwrite, the previous pair kept", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-ow-"));
    try {
      await writeFile(join(dir, "r.jsonl"), RECORDS);
      const args = ["--manifest", "m.json", "--export", "e.json", "--no-canary"];
      expect((await runCli(["ingest", "r.jsonl", ...args], { cwd: dir })).code).toBe(2);
      const before = await pairIn(dir);
      const run = await runCli(["ingest", "r.jsonl/x", ...args, "--overwrite"], { cwd: dir });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(`error: could not read input file ${join(dir, "r.jsonl", "x")} (ENOTDIR)\n`);
      expect(await pairIn(dir)).toEqual(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a target name longer than 210 bytes is refused, naming its flag and the limit; 210 bytes is published", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-ow-"));
    try {
      await writeFile(join(dir, "r.jsonl"), RECORDS);
      const long = `${"m".repeat(206)}.json`;
      const run = await runCli(["ingest", "r.jsonl", "--manifest", long, "--export", "e.json", "--no-canary"], { cwd: dir });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(
        "error: --manifest file name is too long: 211 bytes, at most 210 (ingest writes scratch files beside it, whose names are up to 45 bytes longer, and a file name holds 255); choose a shorter name\n",
      );
      // Counted in bytes: 70 three-byte characters are 210 bytes.
      const exact = `${"é".repeat(102)}.jsonx`;
      expect(Buffer.byteLength(exact)).toBe(210);
      const published = await runCli(["ingest", "r.jsonl", "--manifest", "m.json", "--export", exact, "--no-canary"], { cwd: dir });
      expect(published.code).toBe(2);
      expect((await readdir(dir)).sort()).toEqual([exact, "m.json", "r.jsonl"].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** How to run a command as an unprivileged user here: nothing to add when not root, `setpriv` when root, null when neither works. */
function unprivileged(): string[] | null {
  if (process.getuid?.() !== 0) return [];
  const probe = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "true"]);
  return probe.status === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : null;
}

const asUser = unprivileged();

describe.skipIf(asUser === null)("--overwrite and files the run's user cannot read or write (run as an unprivileged user)", () => {
  let cli: BundledCli;
  // The run's temporary root (0700) must let the user through to its own directory and the bundle.
  let rootMode: number | null = null;
  beforeAll(async () => {
    cli = await bundleCli();
    if (process.getuid?.() === 0) {
      rootMode = (await stat(tmpdir())).mode & 0o7777;
      await chmod(tmpdir(), rootMode | 0o011);
      await chmod(dirname(cli.entry), 0o755);
    }
  }, 120_000);
  afterAll(async () => {
    if (rootMode !== null) await chmod(tmpdir(), rootMode);
    await cli?.dispose();
  });

  const run = (dir: string, args: string[]): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve, reject) => {
      const [command, ...prefix] = [...(asUser as string[]), process.execPath];
      const child = spawn(command as string, [...prefix, cli.entry, ...args], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
      const err: Buffer[] = [];
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr: Buffer.concat(err).toString("utf8") }));
    });

  /** A directory the unprivileged user owns, holding the input. */
  async function ownedDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "lc-ow-user-"));
    await writeFile(join(dir, "r.jsonl"), RECORDS);
    if (process.getuid?.() === 0) {
      await chown(dir, 65534, 65534);
      await chown(join(dir, "r.jsonl"), 65534, 65534);
    }
    return dir;
  }

  it("an input file without read permission is refused before the previous pair is removed", async () => {
    const dir = await ownedDir();
    try {
      const args = ["--manifest", "m.json", "--export", "e.json", "--no-canary"];
      const first = await run(dir, ["ingest", "r.jsonl", ...args]);
      expect(first.stderr).toContain("canary disabled");
      expect(first.code).toBe(2);
      const before = await pairIn(dir);
      await chmod(join(dir, "r.jsonl"), 0o000);
      const refused = await run(dir, ["ingest", "r.jsonl", ...args, "--overwrite"]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toBe(`error: could not read input file ${join(dir, "r.jsonl")} (EACCES)\n`);
      expect(await pairIn(dir)).toEqual(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a cache file without write permission is refused when opened, before the previous pair is removed", async () => {
    const dir = await ownedDir();
    try {
      // With the canary off a run opens no cache, so this one names a canary (never reached: the
      // cache is opened, and refused, first).
      const cache = join(dir, "c.db");
      const args = ["--manifest", "m.json", "--export", "e.json", "--no-canary"];
      const first = await run(dir, ["ingest", "r.jsonl", ...args]);
      expect(first.stderr).toContain("canary disabled");
      expect(first.code).toBe(2);
      const before = await pairIn(dir);
      await writeFile(cache, "");
      if (process.getuid?.() === 0) await chown(cache, 65534, 65534);
      await chmod(cache, 0o444);
      const refused = await run(dir, ["ingest", "r.jsonl", ...args.slice(0, -1), "--ollama-url", "http://127.0.0.1:9", "--cache", cache, "--overwrite"]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain(
        `error: the cache file ${cache} is not writable (EACCES): a run stores the verdicts it gets there; make the file writable, or name another cache file`,
      );
      expect(await pairIn(dir)).toEqual(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
