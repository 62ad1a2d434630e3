// The benchmarks' command-line reader (bench/_args.ts): known flags parse, `--help` prints the
// usage and exits 0, and a mistyped flag or a stray argument names the benchmark and exits 2.
import { afterEach, describe, expect, it, vi } from "vitest";
import { benchArgs } from "../../bench/_args.js";

const OPTIONS = { records: { type: "string", default: "10" }, keep: { type: "boolean", default: false }, dir: { type: "string" } } as const;

class Exited extends Error {
  constructor(readonly code: number | undefined) {
    super(`exit ${code}`);
  }
}

function run(argv: string[]): { values?: unknown; code?: number | undefined; out: string; err: string } {
  let out = "";
  let err = "";
  vi.spyOn(console, "log").mockImplementation((text: string) => {
    out += text;
  });
  vi.spyOn(console, "error").mockImplementation((text: string) => {
    err += text;
  });
  vi.spyOn(process, "exit").mockImplementation((code?: number | string | null) => {
    throw new Exited(code === undefined || code === null ? undefined : Number(code));
  });
  try {
    return { values: benchArgs("bench:x", "usage: bench:x [--records N]", OPTIONS, argv), out, err };
  } catch (error) {
    if (!(error instanceof Exited)) throw error;
    return { code: error.code, out, err };
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("benchArgs", () => {
  it("gives each flag's value, and its default when absent", () => {
    expect(run(["--records", "5", "--keep"]).values).toEqual({ records: "5", keep: true });
    expect(run([]).values).toEqual({ records: "10", keep: false });
    expect(run(["--dir", "/tmp/x"]).values).toMatchObject({ dir: "/tmp/x" });
  });

  it("--help prints the usage on stdout and exits 0", () => {
    const result = run(["--records", "5", "--help"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("usage: bench:x");
    expect(result.err).toBe("");
  });

  it.each([[["--record", "5"]], [["stray"]], [["--records"]]])("%j is refused with exit 2, naming the benchmark, with the usage", (argv) => {
    const result = run(argv);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^bench:x: /);
    expect(result.err).toContain("usage: bench:x");
    expect(result.out).toBe("");
  });
});
