// The embedded canary's refusals that need no engine: a missing node-llama-cpp (injected loader),
// a wrong SHA-256 (a stand-in engine that records whether anything was loaded), the flag rules,
// and the rule that nothing in src/ imports node-llama-cpp at load time.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { describeFailure } from "../../cli/exit-codes.js";
import { checkText } from "../../src/verbs/check.js";
import { EmbeddedEngineMissingError, engineInstallLines, loadEmbeddedEngine } from "../../src/canary/embedded-engine.js";
import { EmbeddedCanaryProbe } from "../../src/canary/embedded-probe.js";
import { ingestFiles } from "../../src/ingest/files.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { tsFiles } from "../../scripts/import-graph.js";
import { runCli } from "../support/cli.js";
import { writeTinyModel } from "../support/tiny-gguf.js";

const notFound = async (): Promise<never> => {
  throw Object.assign(new Error("Cannot find package 'node-llama-cpp'"), { code: "ERR_MODULE_NOT_FOUND" });
};

/** A stand-in engine module that records every call; it never loads anything real. */
function recordingEngine(): { loader: () => Promise<unknown>; calls: string[] } {
  const calls: string[] = [];
  const module = {
    getLlama: async () => {
      calls.push("getLlama");
      return {
        loadModel: async () => {
          calls.push("loadModel");
          throw new Error("stand-in");
        },
        dispose: async () => undefined,
      };
    },
    resolveChatWrapper: () => ({}),
  };
  return { loader: async () => module, calls };
}

describe("embedded canary without node-llama-cpp", () => {
  it("a missing engine is a config error carrying both install lines", async () => {
    const error = await loadEmbeddedEngine(notFound).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddedEngineMissingError);
    expect((error as EmbeddedEngineMissingError).code).toBe("config");
    const message = (error as Error).message;
    expect(message).toContain("--canary embedded needs node-llama-cpp 3.21.1, which is not installed");
    expect(message).toContain(engineInstallLines());
    expect(engineInstallLines("linux", "x64")).toContain("npm i node-llama-cpp@3.21.1 @node-llama-cpp/linux-x64@3.21.1 --omit=optional");
    expect(engineInstallLines("linux", "x64")).toContain("npm i node-llama-cpp@3.21.1   (every prebuilt binary");
    expect(engineInstallLines("sunos", "sparc")).not.toContain("--omit=optional");
  });

  it("check refuses before any text is screened, with the refused exit code of check (2) and of ingest (3)", async () => {
    const tiny = writeTinyModel();
    const pipeline = new SecurityPipeline({ provider: "embedded", embedded: { modelPath: tiny.path, sha256: tiny.sha256, loader: notFound } });
    const error = await checkText({ input: "hello", pipeline }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddedEngineMissingError);
    expect(describeFailure("check", error).exitCode).toBe(2);
    expect(describeFailure("ingest", error).exitCode).toBe(3);
    expect(describeFailure("check", error).message).toContain("npm i node-llama-cpp@3.21.1");
  });

  it("ingest refuses at its gate with nothing written when the engine is missing", async () => {
    const tiny = writeTinyModel();
    writeFileSync(join(tiny.dir, "in.jsonl"), `${JSON.stringify({ text: "hello" })}\n`);
    const error = await ingestFiles({
      input: "in.jsonl",
      manifest: "m.json",
      export: "e.json",
      cwd: tiny.dir,
      pipeline: () => new SecurityPipeline({ provider: "embedded", embedded: { modelPath: tiny.path, sha256: tiny.sha256, loader: notFound } }),
    }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("config");
    expect((error as Error).message).toContain("npm i node-llama-cpp@3.21.1");
    expect(existsSync(join(tiny.dir, "m.json"))).toBe(false);
    expect(existsSync(join(tiny.dir, "e.json"))).toBe(false);
  });

  it("a check with a missing engine (no pre-flight) is degraded, never a pass", async () => {
    const tiny = writeTinyModel();
    const pipeline = new SecurityPipeline({ provider: "embedded", embedded: { modelPath: tiny.path, sha256: tiny.sha256, loader: notFound } });
    const verdict = await pipeline.check("What is the capital of France?");
    expect(verdict.degraded).toBe(true);
    expect(verdict.exercised).toBe(false);
  });

  it("a wrong --canary-sha256 refuses before the engine loads anything", async () => {
    const tiny = writeTinyModel();
    const engine = recordingEngine();
    const probe = new EmbeddedCanaryProbe({ modelPath: tiny.path, sha256: "ab".repeat(32), loader: engine.loader });
    const opened = await probe.open();
    expect(opened.ok).toBe(false);
    if (!opened.ok) {
      expect(opened.error.code).toBe("config");
      expect(opened.error.message).toBe(
        `the model file's SHA-256 is ${tiny.sha256}, not the ${"ab".repeat(32)} given with --canary-sha256; nothing was loaded`,
      );
    }
    expect(engine.calls).toEqual([]);
    // The right hash gets as far as the (stand-in) load.
    const right = new EmbeddedCanaryProbe({ modelPath: tiny.path, sha256: tiny.sha256, loader: engine.loader });
    expect((await right.open()).ok).toBe(false);
    expect(engine.calls).toEqual(["getLlama", "loadModel"]);
  });

  it("the CLI refuses a path without --canary-sha256, a hash without a path, and other backends' flags", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["--canary", "embedded:/tmp/x.gguf"], /--canary embedded:PATH needs --canary-sha256 HEX/],
      [["--canary", "embedded", "--canary-sha256", "a".repeat(64)], /--canary-sha256 needs a path/],
      [["--canary-sha256", "a".repeat(64)], /--canary-sha256 needs --canary embedded:PATH/],
      [["--canary", "ollama"], /--canary takes embedded or embedded:PATH.gguf/],
      [["--canary", "embedded", "--provider", "openai", "--base-url", "http://127.0.0.1:1/v1"], /cannot be used with --provider openai/],
      [["--canary", "embedded", "--ollama-url", "http://127.0.0.1:1"], /cannot be used with --ollama-url/],
      [["--canary", "embedded", "--canary-model", "llama3"], /the embedded canary's model is its file/],
      [["--canary", "embedded:/tmp/x.gguf", "--canary-sha256", "xyz"], /--canary-sha256 must be 64 hexadecimal digits/],
      // The two share one option value, where the last given would win: both are refused, in either order.
      [["--canary", "embedded", "--no-canary"], /give --canary or --no-canary, not both/],
      [["--no-canary", "--canary", "embedded"], /give --canary or --no-canary, not both/],
    ];
    for (const [flags, message] of cases) {
      const run = await runCli(["check", "--text", "hello", ...flags]);
      expect(run.code, flags.join(" ")).toBe(2);
      expect(run.stderr, flags.join(" ")).toMatch(message);
      expect(run.stdout).toBe("");
    }
  });

  it("an empty --model-dir is refused by check, screen, ingest and serve as model pull refuses it, before any engine is loaded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lc-model-dir-"));
    writeFileSync(join(dir, "in.jsonl"), `${JSON.stringify({ id: "a", text: "hello" })}\n`);
    const refusal = "error: --model-dir is empty: give the model directory, or leave --model-dir out to use the default one\n";
    const commands: Array<[string[], number]> = [
      [["check", "--text", "hello"], 2],
      [["screen", "in.jsonl"], 2],
      [["ingest", "in.jsonl", "--manifest", "m.json"], 3],
      [["serve", "--port", "0"], 2],
    ];
    try {
      for (const [command, code] of commands) {
        for (const empty of ["", "  "]) {
          const run = await runCli([...command, "--canary", "embedded", "--model-dir", empty], { cwd: dir });
          expect(run.code, command[0]).toBe(code);
          // The refusal, not the missing engine's install lines: nothing was loaded, nor looked for in the current directory.
          expect(run.stderr, command[0]).toBe(refusal);
          expect(run.stdout).toBe("");
        }
      }
      expect(readdirSync(dir)).toEqual(["in.jsonl"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(() => new SecurityPipeline({ provider: "embedded", embedded: { modelDir: "" } })).toThrow(/^embedded\.modelDir is empty/);
  });

  it("the library refuses settings that name another backend, and a model path without its SHA-256", () => {
    const path = "/tmp/x.gguf";
    const sha256 = "a".repeat(64);
    const refusals: Array<[ConstructorParameters<typeof SecurityPipeline>[0], RegExp]> = [
      [{ provider: "embedded", embedded: { modelPath: path } }, /needs the model file's SHA-256/],
      [{ provider: "embedded", embedded: { sha256 } }, /--canary-sha256 needs a model path/],
      [{ provider: "embedded", embedded: { modelPath: path, sha256: "xyz" } }, /must be 64 hexadecimal digits/],
      [{ provider: "embedded", embedded: { modelPath: path, sha256 }, ollamaUrl: "http://127.0.0.1:1" }, /takes no ollamaUrl/],
      [{ provider: "embedded", embedded: { modelPath: path, sha256 }, judgeModel: "j" }, /judgeModel cannot be used/],
      [{ provider: "embedded", embedded: { modelPath: path, sha256 }, canaryModel: "m" }, /canaryModel names a served model/],
      [{ provider: "embedded", embedded: { modelPath: path, sha256 }, canaryNumCtx: 4096 }, /canaryNumCtx is supported by the Ollama provider only/],
      [{ provider: "embedded", embedded: { modelPath: path, sha256, sequences: 0 } }, /embedded.sequences must be a positive integer/],
      [
        { provider: "embedded", embedded: { modelPath: path, sha256 }, canaryPool: { endpoints: [{ url: "http://127.0.0.1:1", concurrency: 1 }] } },
        /canaryPool cannot be used/,
      ],
    ];
    for (const [options, message] of refusals) expect(() => new SecurityPipeline(options), String(message)).toThrow(message);
  });

  it("--canary embedded without a path and without a pulled model names model pull", async () => {
    const tiny = writeTinyModel();
    const engine = recordingEngine();
    const pipeline = new SecurityPipeline({ provider: "embedded", embedded: { modelDir: join(tiny.dir, "empty"), loader: engine.loader } });
    const opened = await (pipeline.probe as EmbeddedCanaryProbe).open();
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.error.message).toMatch(/the default embedded model is not in the model cache .*empty; run `little-canary model pull`/);
    expect(engine.calls).toEqual([]);
  });

  it("nothing in src/ or cli/ imports node-llama-cpp; the one lazy import() names it through a variable", () => {
    const root = resolve(import.meta.dirname, "../..");
    const files = [...tsFiles(root, "src"), ...tsFiles(root, "cli")];
    const importers = files.filter((file) =>
      ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true).importedFiles.some((f) => f.fileName.startsWith("node-llama-cpp")),
    );
    expect(importers).toEqual([]);
    const lazy = files.filter((file) => /import\(\s*ENGINE_PACKAGE\s*\)/.test(readFileSync(join(root, file), "utf8")));
    expect(lazy).toEqual(["src/canary/embedded-engine.ts"]);
    expect(files.filter((file) => /require\(\s*["']node-llama-cpp/.test(readFileSync(join(root, file), "utf8")))).toEqual([]);
  });
});
