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

describe("every runnable example reads its command line this way", () => {
  it("each example that runs as a script imports exampleArgs (ingest-consumer keeps its own copy of it)", async () => {
    const { readdir, readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const root = join(import.meta.dirname, "../../examples");
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith(".ts") && f !== "command-line.ts");
    const runnable: string[] = [];
    for (const file of files) {
      const text = await readFile(join(root, file), "utf8");
      if (!text.includes("process.argv[1]")) continue;
      runnable.push(file);
      // ingest-consumer.ts is copied alone into a consumer's project, so it keeps these lines itself.
      const own = file === "ingest-consumer.ts" && text.includes("function parsedArgs");
      expect(own || /import \{[^}]*\bexampleArgs\b[^}]*\} from "\.\.?\/(\.\.\/)?command-line\.js"/.test(text), file).toBe(true);
      expect(text.includes("parseArgs(") && !own ? file : null).toBeNull();
    }
    expect(runnable.length).toBeGreaterThanOrEqual(4);
  });
});
