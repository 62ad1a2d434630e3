// An install whose SQLite addon cannot be loaded (built with --ignore-scripts, or for another
// Node.js) is reported as a configuration error that says what to run, not as an unexpected failure.
import { afterEach, describe, expect, it, vi } from "vitest";

const failure = vi.hoisted(() => ({ error: null as Error | null }));
vi.mock("better-sqlite3", async (importOriginal) => {
  const real = ((await importOriginal()) as { default: unknown }).default as { SqliteError: unknown };
  // The constructor is where better-sqlite3 loads its addon; a scripted failure stands in for it.
  function Database(this: unknown, ...args: unknown[]) {
    if (failure.error !== null) throw failure.error;
    return new (real as unknown as new (...a: unknown[]) => object)(...args);
  }
  Database.SqliteError = real.SqliteError;
  return { default: Database };
});

const { openSqlite, SQLITE_ADDON_MISSING } = await import("../../src/cache/sqlite-open.js");
const { IdIndex } = await import("../../src/cache/id-index.js");
const { mkdtemp, rm } = await import("node:fs/promises");
const { join } = await import("node:path");
const { tmpdir } = await import("node:os");

afterEach(() => {
  failure.error = null;
});

describe("opening SQLite when its addon cannot be loaded", () => {
  const loadFailures: Array<[string, Error]> = [
    ["a missing build", new Error("Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node")],
    [
      "a build for another Node.js",
      Object.assign(new Error("The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127."), {
        code: "ERR_DLOPEN_FAILED",
      }),
    ],
  ];
  for (const [what, error] of loadFailures) {
    it(`reports ${what} as a config error that says to rebuild better-sqlite3`, () => {
      failure.error = error;
      expect(() => openSqlite(":memory:")).toThrow(expect.objectContaining({ code: "config", message: SQLITE_ADDON_MISSING }));
      expect(SQLITE_ADDON_MISSING).toContain("npm rebuild better-sqlite3");
    });
  }

  it("passes any other failure on unchanged", () => {
    const other = new TypeError("Cannot open database because the directory does not exist");
    failure.error = other;
    expect(() => openSqlite("/nonexistent/x.db")).toThrow(other);
  });

  it("surfaces the config error from the per-run id index, and leaves no file behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-sqlite-open-"));
    try {
      failure.error = new Error("Could not locate the bindings file. Tried: …");
      expect(() => IdIndex.createAt(join(dir, "ids.db"))).toThrow(expect.objectContaining({ code: "config", message: SQLITE_ADDON_MISSING }));
      const { readdir } = await import("node:fs/promises");
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("opens a database as usual when the addon loads", () => {
    const db = openSqlite(":memory:");
    expect(db.prepare("SELECT 1 AS one").get()).toEqual({ one: 1 });
    db.close();
  });
});
