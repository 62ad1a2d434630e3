// Vitest's global setup (vitest.config.ts, vitest.heavy.config.ts): the test processes' temporary
// files go under one directory of this run, removed when the run ends. Tests make their own
// directories with mkdtemp(tmpdir()) and many leave them (a killed child's files, a budget test's
// 64 MB manifest); without this a developer's /tmp grew by some hundreds of megabytes per run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Set while a run's directory is in place. */
const MARK = "LITTLE_CANARY_TEST_RUN_TMPDIR";

/** Points TMPDIR at a new directory for the run's test processes (they inherit it) and returns its removal. */
export default function setup(): () => void {
  // Each project of a run calls this: the first makes the directory, the others use it.
  if (process.env[MARK] !== undefined) return () => undefined;
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), "little-canary-tests-"));
  process.env.TMPDIR = dir;
  process.env[MARK] = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env[MARK];
    rmSync(dir, { recursive: true, force: true });
  };
}
