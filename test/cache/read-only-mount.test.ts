// A verdict cache on a read-only file system. SQLite keeps a cache in write-ahead-log mode and must
// create its `-shm` file beside it even to read it, so the open fails; the error says why and what
// to do instead of SQLite's bare code. The read-only bind mount needs `unshare -m` with the right to
// mount (root in a container that allows it); without that the test is skipped, saying so.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerdictCache } from "../../src/cache/verdict-cache.js";
import { sha256Hex } from "../../src/core/hash.js";
import { bundleCli, type BundledCli } from "../support/cli-child.js";
import { testIdentity } from "../support/cache-identity.js";

/** Whether this process may make a read-only bind mount in a mount namespace of its own. */
function canMountReadOnly(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "lc-ro-probe-"));
  try {
    const probe = spawnSync("unshare", ["-m", "sh", "-c", `mount --bind "${dir}" "${dir}" && mount -o remount,ro,bind "${dir}" "${dir}"`], {
      stdio: "ignore",
      timeout: 10_000,
    });
    return probe.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mountable = canMountReadOnly();
if (!mountable) console.warn("read-only-mount: skipped: `unshare -m` with mount rights is not available here");

describe.runIf(mountable)("a verdict cache on a read-only mount", () => {
  let dir: string;
  let cli: BundledCli;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lc-ro-cache-"));
    cli = await bundleCli();
  });
  afterAll(async () => {
    await cli?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the CLI with `args` while `mounted` is bound read-only (in a mount namespace of its own). */
  const underReadOnly = (mounted: string, args: readonly string[]) => {
    const quoted = [process.execPath, cli.entry, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    return spawnSync(
      "unshare",
      ["-m", "sh", "-c", `mount --bind '${mounted}' '${mounted}' && mount -o remount,ro,bind '${mounted}' '${mounted}' && exec ${quoted}`],
      {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
        timeout: 60_000,
      },
    );
  };

  it("cache stats and cache prune say the directory is read-only and what to do; the file is untouched", () => {
    const folder = join(dir, "mounted");
    mkdirSync(folder);
    const path = join(folder, "verdicts.sqlite");
    const cache = VerdictCache.open(path);
    cache.put({ textSha256: sha256Hex("t"), identity: testIdentity(), state: "pass", exercised: true, value: {} });
    cache.close();
    // A cleanly closed cache leaves no -wal or -shm file: the case that cannot be read in place.
    expect(existsSync(`${path}-shm`)).toBe(false);

    const stats = underReadOnly(folder, ["cache", "stats", "--cache", path]);
    expect(stats.stdout).toBe("");
    expect(stats.stderr).toBe(
      `error: the cache file ${path} cannot be opened (SQLITE_CANTOPEN): its directory takes no new files here (a read-only mount, or no write permission), and SQLite must create ${path}-shm ` +
        "beside the cache to read it; copy the file to a writable directory and run the command on the copy\n",
    );
    expect(stats.status).not.toBe(0);

    // A command that writes the cache is refused before SQLite opens it read-only in silence.
    const prune = underReadOnly(folder, ["cache", "prune", "--cache", path, "--older-than", "30d"]);
    expect(prune.stdout).toBe("");
    expect(prune.stderr).toBe(
      `error: the cache file ${path} is not writable (EROFS): it is on a read-only file system, and a run stores the verdicts it gets in it; copy it to a writable directory and name the copy\n`,
    );
    expect(prune.status).not.toBe(0);
    // So is a run that would have stored a verdict only after --overwrite removed the previous pair.
    writeFileSync(join(dir, "r.jsonl"), '{"text":"a text not in the cache"}\n');
    const run = underReadOnly(folder, [
      "ingest",
      join(dir, "r.jsonl"),
      "--manifest",
      join(dir, "m.json"),
      "--ollama-url",
      "http://127.0.0.1:9",
      "--cache",
      path,
    ]);
    expect(run.stderr).toContain(`error: the cache file ${path} is not writable (EROFS)`);
    expect(run.status).toBe(3);

    // The same file in a writable directory reads as before.
    const reread = VerdictCache.open(path, { readonly: true });
    expect(reread.stats().entries).toBe(1);
    reread.close();
  });
});
