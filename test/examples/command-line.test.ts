// The runnable examples' command line: --help prints the usage on stdout (exit 0), a mistake one
// error line and the usage on stderr (exit 2), never a stack trace; flags are read as given.
import { describe, expect, it } from "vitest";
import { exampleArgs } from "../../examples/command-line.js";

const FLAGS = { manifest: { type: "string" }, "allow-unpinned": { type: "boolean" } } as const;
const USAGE = "usage: example --manifest M [--allow-unpinned]\n";

function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const result = exampleArgs(FLAGS, USAGE, args, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
  return { result, stdout: out.join(""), stderr: err.join("") };
}

describe("the examples' command line", () => {
  it("reads the flags it is given", () => {
    expect(run(["--manifest", "m.json", "--allow-unpinned"])).toEqual({ result: { manifest: "m.json", "allow-unpinned": true }, stdout: "", stderr: "" });
  });

  it("--help and -h print the usage on stdout and exit 0", () => {
    expect(run(["--help"])).toEqual({ result: 0, stdout: USAGE, stderr: "" });
    expect(run(["-h"])).toEqual({ result: 0, stdout: USAGE, stderr: "" });
  });

  it("an unknown flag or a missing value is one error line and the usage on stderr, exit 2", () => {
    const unknown = run(["--nope"]);
    expect(unknown.result).toBe(2);
    expect(unknown.stdout).toBe("");
    // Node's own words for the flag, which later releases lengthen, then the usage.
    expect(unknown.stderr.split("\n")[0]).toMatch(/^error: Unknown option '--nope'/);
    expect(unknown.stderr.endsWith(USAGE)).toBe(true);
    expect(unknown.stderr.split("\n")).toHaveLength(3);
    const missing = run(["--manifest"]);
    expect(missing.result).toBe(2);
    expect(missing.stderr.split("\n")[0]).toMatch(/^error: Option '--manifest <value>' argument missing/);
    expect(missing.stderr.endsWith(USAGE)).toBe(true);
  });
});
