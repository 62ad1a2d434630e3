// A fresh temporary directory for every test of the calling file, removed after the test together
// with whatever the test handed to `closeAfter` (a loopback stand-in it started), so a test file
// needs no beforeEach/afterEach of its own for them.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** What `tempDirPerTest` gives each test: read it inside a test (it changes from test to test). */
export interface TestDir {
  /** The test's own empty directory. */
  readonly dir: string;
  /** Closes `resource` when the test ends, before its directory is removed; returns `resource`. */
  closeAfter<T extends { close(): Promise<void> }>(resource: T): T;
}

/** Registers, for every test of the calling file, a new directory under tmpdir() named `prefix…`, and its removal. */
export function tempDirPerTest(prefix: string): TestDir {
  let dir: string | null = null;
  let open: { close(): Promise<void> }[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    // Every resource is closed even when one fails to, and the directory is removed after them.
    const closing = open;
    open = [];
    const results = await Promise.allSettled(closing.map((resource) => resource.close()));
    if (dir !== null) await rm(dir, { recursive: true, force: true });
    dir = null;
    const failed = results.find((result) => result.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  });
  return {
    get dir() {
      if (dir === null) throw new Error("tempDirPerTest: read the directory inside a test");
      return dir;
    },
    closeAfter(resource) {
      open.push(resource);
      return resource;
    },
  };
}
