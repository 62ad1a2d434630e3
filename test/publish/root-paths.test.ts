// Target paths directly under the file-system root (containers run with cwd "/"): the canonical
// form keeps the whole file name, so two names under "/" stay distinct and errors name the real
// directory. Nothing here writes under "/": every run stops at a refusal before the lock.
import { describe, expect, it } from "vitest";
import { canonicalPath } from "../../src/core/file-identity.js";
import { preflightTargets } from "../../src/ingest/target-checks.js";
import { runCli } from "../support/cli.js";

describe("paths under /", () => {
  it("canonicalPath keeps the full name of a missing file under / and of a missing directory chain", async () => {
    expect(await canonicalPath("/lc-issue12-missing-m.json")).toBe("/lc-issue12-missing-m.json");
    expect(await canonicalPath("/lc-issue12-nonexistent/dir/x.json")).toBe("/lc-issue12-nonexistent/dir/x.json");
  });

  it("--manifest m.json and --export e.json under cwd / are two different targets", async () => {
    await expect(preflightTargets({ manifestPath: "/m.json", exportPath: "/e.json", inputPath: null, overwrite: false })).resolves.toBeUndefined();
    // Through the CLI with an injected cwd "/": the run gets past the path rules and is refused
    // by the next check (the invalid setting), never as "the same path".
    const run = await runCli(["ingest", "-", "--manifest", "m.json", "--export", "e.json", "--segment-chars", "0", "--no-canary"], { cwd: "/" });
    expect(run.code).toBe(3);
    expect(run.stderr).not.toContain("must be different paths");
    expect(run.stderr).toContain("segment");
  });

  it("a manifest in a missing directory is reported with that directory's real name", async () => {
    const run = await runCli(["ingest", "-", "--manifest", "/lc-issue12-nonexistent/dir/x.json", "--no-canary"], { cwd: "/", stdin: "" });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("/lc-issue12-nonexistent/dir");
    expect(run.stderr).not.toContain("/c-issue12-nonexistent");
  });
});
