// Appends to a file a user named (the job summary, the endpoint log, the audit log) never go
// through a symlink: one put at the path after the run checked its files (a swap) makes the
// append fail, and the file it points to is left as it was.
import { execFileSync } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendNoFollow, appendNoFollowSync, appendTargetProblem } from "../../src/core/append.js";
import { endpointLogWriter } from "../../src/canary/pool-endpoints.js";
import { CiReports } from "../../src/report/ci-reports.js";
import { tempDir } from "../support/publish-fixtures.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "m.json"), "{}");
});
afterEach(async () => cleanup());

const manifest = () => readFile(join(dir, "m.json"), "utf8");

describe("appends never follow a symlink", () => {
  it("appendNoFollow and appendNoFollowSync append to a plain file and refuse a symlink with ELOOP", async () => {
    await appendNoFollow(join(dir, "log.txt"), "a\n");
    appendNoFollowSync(join(dir, "log.txt"), "b\n");
    expect(await readFile(join(dir, "log.txt"), "utf8")).toBe("a\nb\n");
    await symlink("m.json", join(dir, "link"));
    await expect(appendNoFollow(join(dir, "link"), "x")).rejects.toMatchObject({ code: "ELOOP" });
    expect(() => appendNoFollowSync(join(dir, "link"), "x")).toThrow(expect.objectContaining({ code: "ELOOP" }));
    expect(await manifest()).toBe("{}");
  });

  it("an endpoint log swapped for a symlink to the manifest is not written through", async () => {
    await symlink("m.json", join(dir, "log.jsonl"));
    const log = endpointLogWriter(join(dir, "log.jsonl"));
    expect(() =>
      log({
        check: 1,
        attempt: 1,
        endpoint: "http://127.0.0.1:1",
        outcome: "ok",
        http_status: 200,
        latency_ms: 1,
        text_sha256: "0",
        retried: false,
        taken_out: false,
      }),
    ).toThrow(expect.objectContaining({ code: "ELOOP" }));
    expect(await manifest()).toBe("{}");
  });

  it("a job summary swapped for a symlink to the manifest after the start-up check is not appended to; a warning says so", async () => {
    const warnings: string[] = [];
    const reports = await CiReports.open({ github: { write: (text) => warnings.push(text), stepSummary: "summary.md" } }, "in.jsonl", dir);
    await symlink("m.json", join(dir, "summary.md"));
    await reports.finish({ command: "screen", total: 0, counts: { pass: 0 } });
    expect(await manifest()).toBe("{}");
    expect(warnings.join("")).toContain("warning: could not append the job summary to $GITHUB_STEP_SUMMARY (it is a symbolic link (never followed))");
  });
});

describe("what can take an append", () => {
  it("a regular file, a character device or a new file in an existing directory can; a FIFO, a directory, a symlink or a missing directory cannot", async () => {
    expect(appendTargetProblem(join(dir, "m.json"))).toBeNull();
    expect(appendTargetProblem("/dev/null")).toBeNull();
    expect(appendTargetProblem(join(dir, "new.log"))).toBeNull();
    execFileSync("mkfifo", [join(dir, "log.fifo")]);
    expect(appendTargetProblem(join(dir, "log.fifo"))).toBe("is not a regular file: a FIFO or socket would be waited on");
    await mkdir(join(dir, "sub"));
    expect(appendTargetProblem(join(dir, "sub"))).toBe("is a directory");
    await symlink("m.json", join(dir, "link"));
    expect(appendTargetProblem(join(dir, "link"))).toBe("is a symbolic link (never followed)");
    expect(appendTargetProblem(join(dir, "no", "such", "log"))).toBe("is in a directory that does not exist");
    expect(appendTargetProblem(join(dir, "m.json", "log"))).toBe("is in a path whose parent is not a directory");
  });
});
