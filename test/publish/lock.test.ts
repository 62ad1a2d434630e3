// The publication lock on the manifest path: one holder at a time, a bounded wait, recovery of a
// lock left by a killed process, and a lost lock that stops publication before it commits.
import { mkdir, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquirePublicationLock, lockPathFor, lockTargets, STALE_LOCK_MS } from "../../src/publish/lock.js";
import { tempDir } from "../support/publish-fixtures.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

describe("publication lock", () => {
  it("is a <manifest>.lock directory that exists while held and is gone after release", async () => {
    const manifest = join(dir, "m.json");
    const lock = await acquirePublicationLock(manifest);
    expect((await stat(lockPathFor(manifest))).isDirectory()).toBe(true);
    await lock.release();
    await lock.release();
    await expect(stat(lockPathFor(manifest))).rejects.toThrow(/ENOENT/);
  });

  it("refuses a second holder at once with a message that names the lock and --wait-lock", async () => {
    const manifest = join(dir, "m.json");
    const first = await acquirePublicationLock(manifest);
    try {
      await expect(acquirePublicationLock(manifest)).rejects.toMatchObject({
        code: "publish",
        message: expect.stringMatching(/another run is publishing to .*m\.json \(lock .*m\.json\.lock is held\); retry later or pass --wait-lock SECONDS/),
      });
    } finally {
      await first.release();
    }
  });

  it("waits up to --wait-lock seconds and gets the lock once the holder releases it", async () => {
    const manifest = join(dir, "m.json");
    const first = await acquirePublicationLock(manifest);
    setTimeout(() => void first.release(), 300);
    const started = Date.now();
    const second = await acquirePublicationLock(manifest, { waitSeconds: 5 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await second.release();
  });

  it("says once, when the wait begins, what it waits for and that a killed run's lock is taken over", async () => {
    const manifest = join(dir, "m.json");
    const first = await acquirePublicationLock(manifest);
    const told: string[] = [];
    setTimeout(() => void first.release(), 800);
    const second = await acquirePublicationLock(manifest, { waitSeconds: 5, onWait: (message) => told.push(message) });
    await second.release();
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(
      /^waiting up to 5 s for the publication lock .*m\.json\.lock, held by another run \(a lock left by a killed run is taken over 20 s after its last refresh\)$/,
    );
    // Free at once: nothing to say.
    const free = await acquirePublicationLock(manifest, { waitSeconds: 5, onWait: (message) => told.push(message) });
    await free.release();
    expect(told).toHaveLength(1);
  });

  it("a run waiting for both its locks says so once", async () => {
    const manifest = join(dir, "m.json");
    const exported = join(dir, "e.json");
    const [a, b] = [await acquirePublicationLock(manifest), await acquirePublicationLock(exported)];
    // The locks are taken in sorted order (e.json, then m.json): each is still held when its turn comes.
    setTimeout(() => void b.release(), 400);
    setTimeout(() => void a.release(), 1_000);
    const told: string[] = [];
    const both = await lockTargets({ manifestPath: manifest, exportPath: exported }, 5, undefined, (message) => told.push(message));
    await both.release();
    expect(told).toHaveLength(1);
  });

  it("waits --wait-lock seconds for all of a run's locks together, not that long for each", async () => {
    const manifest = join(dir, "m.json");
    const exported = join(dir, "e.json");
    const [a, b] = [await acquirePublicationLock(manifest), await acquirePublicationLock(exported)];
    // e.json is free after 0.6 s of the 1 s wait; m.json only at 1.4 s, inside a fresh 1 s wait but past the run's.
    setTimeout(() => void b.release(), 600);
    setTimeout(() => void a.release(), 1_400);
    try {
      await expect(lockTargets({ manifestPath: manifest, exportPath: exported }, 1)).rejects.toThrow(/m\.json\.lock is held\); still held after waiting 1s/);
    } finally {
      await a.release();
      await b.release();
    }
  });

  it("knows when another run has taken it over: its directory gone, or made anew by the other run", async () => {
    const manifest = join(dir, "m.json");
    const lock = await acquirePublicationLock(manifest);
    expect(await lock.takenOver()).toBe(false);
    // What a takeover does: the stale directory removed and one of the other run's made in its place.
    await rm(lockPathFor(manifest), { recursive: true });
    expect(await lock.takenOver()).toBe(true);
    // A takeover comes at least STALE_LOCK_MS later; a few milliseconds tell the births apart here,
    // and another directory made first takes the inode the file system would reuse.
    await sleep(30);
    await mkdir(join(dir, "between"));
    await mkdir(lockPathFor(manifest));
    expect(await lock.takenOver()).toBe(true);
    await rm(lockPathFor(manifest), { recursive: true });
    await lock.release();
    const both = await lockTargets({ manifestPath: manifest, exportPath: join(dir, "e.json") }, 0);
    expect(await both.takenOver()).toBe(false);
    await rm(lockPathFor(join(dir, "e.json")), { recursive: true });
    await sleep(30);
    await mkdir(lockPathFor(join(dir, "e.json")));
    expect(await both.takenOver()).toBe(true);
    await both.release();
  });

  it("gives up after the wait and says so", async () => {
    const manifest = join(dir, "m.json");
    const first = await acquirePublicationLock(manifest);
    try {
      await expect(acquirePublicationLock(manifest, { waitSeconds: 0.3 })).rejects.toThrow("still held after waiting 0.3s");
    } finally {
      await first.release();
    }
  });

  it("stops waiting when the run is interrupted", async () => {
    const manifest = join(dir, "m.json");
    const first = await acquirePublicationLock(manifest);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    try {
      await expect(acquirePublicationLock(manifest, { waitSeconds: 30, signal: controller.signal })).rejects.toThrow("interrupted");
    } finally {
      await first.release();
    }
  });

  it("recovers a lock left by a killed process once it is older than the stale threshold", async () => {
    const manifest = join(dir, "m.json");
    await mkdir(lockPathFor(manifest));
    const old = new Date(Date.now() - STALE_LOCK_MS - 5_000);
    await utimes(lockPathFor(manifest), old, old);
    const lock = await acquirePublicationLock(manifest);
    expect(lock.compromised).toBeNull();
    await lock.release();
  });

  it("does not take over a recent lock of another process", async () => {
    const manifest = join(dir, "m.json");
    await mkdir(lockPathFor(manifest));
    await expect(acquirePublicationLock(manifest)).rejects.toThrow("another run is publishing");
    await rm(lockPathFor(manifest), { recursive: true });
  });

  it("reports a missing directory the way the directory check does", async () => {
    await expect(acquirePublicationLock(join(dir, "missing", "m.json"))).rejects.toThrow(`--manifest directory does not exist: ${join(dir, "missing")}`);
  });

  it("names the flag whose directory is missing: the export's when only the export's is", async () => {
    const exportOnly = { manifestPath: join(dir, "m.json"), exportPath: join(dir, "gone", "e.json") };
    await expect(lockTargets(exportOnly, 0)).rejects.toThrow(`--export directory does not exist: ${join(dir, "gone")}`);
    const manifestOnly = { manifestPath: join(dir, "gone", "m.json"), exportPath: join(dir, "e.json") };
    await expect(lockTargets(manifestOnly, 0)).rejects.toThrow(`--manifest directory does not exist: ${join(dir, "gone")}`);
  });
});
