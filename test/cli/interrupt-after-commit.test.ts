// Ctrl-C that lands just after the commit: the pair is published and verifies, so the run keeps
// its normal exit code, says the interrupt came too late, and leaves no `.lock` behind; the
// signal handler stays registered until the lock is released, so no interrupt in that window can
// kill the process with the lock still on disk.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { run as runIngest } from "../../cli/commands/ingest.js";
import { signalExitCode, type CliIo } from "../../cli/io.js";
import { runMain } from "../../cli/program.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { RECORDS, dirState, recordingFs, tempDir } from "../support/publish-fixtures.js";
import { ingestFlags, testIo } from "../support/ingest-io.js";

let ollama: OllamaStandIn;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, "in.jsonl"), RECORDS);
});
afterEach(async () => {
  await ollama.close();
  await cleanup();
});

describe("interrupt after the commit", () => {
  it("SIGINT just after the commit keeps exit 0, prints the committed warning, releases the lock before the handler goes", async () => {
    const t = testIo(dir);
    const locksAtUnregister: boolean[] = [];
    const io = {
      ...t.io,
      onSignal(handler: (signal: NodeJS.Signals) => void) {
        const unregister = t.io.onSignal(handler);
        return () => {
          locksAtUnregister.push(existsSync(join(dir, "m.json.lock")) || existsSync(join(dir, "e.json.lock")));
          unregister();
        };
      },
    };
    let committed = false;
    const { fs } = recordingFs((call) => {
      // The first operation after the manifest's link is the first moment after the commit.
      if (committed) {
        committed = false;
        t.trigger("SIGINT");
      }
      if (call.op === "link" && call.to === join(dir, "m.json")) committed = true;
    });
    const code = await runIngest("in.jsonl", ingestFlags(ollama.url), io, { fs });
    expect(code).toBe(0);
    expect(t.stderr()).toContain("warning: interrupted, but the publication had already committed");
    expect(locksAtUnregister).toEqual([false]);
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
    const verified = await runCli(["verify", "--manifest", join(dir, "m.json"), "--export", join(dir, "e.json")], { cwd: dir });
    expect(verified.code).toBe(0);
  });
});

describe("interrupt after the summary", () => {
  it("a SIGINT that lands after the summary is printed and before the process exits keeps the normal exit code", async () => {
    // Signals as a process gets them: with no handler registered, a SIGINT ends it (exit 130).
    const handlers = new Set<(signal: NodeJS.Signals) => void>();
    let killedWith: number | null = null;
    const deliver = (signal: NodeJS.Signals): void => {
      if (handlers.size === 0) killedWith ??= signalExitCode(signal);
      for (const handler of handlers) handler(signal);
    };
    // Every write to stdout once the summary is out (the summary itself, then the final flush
    // of the command's output) is followed by a SIGINT, and one more lands after runMain returns.
    const out: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out.push(chunk.toString("utf8"));
        callback();
        if (out.join("").includes("records")) deliver("SIGINT");
      },
    });
    const t = testIo(dir);
    const io: CliIo = {
      ...t.io,
      stdout,
      onSignal(handler) {
        handlers.add(handler);
        return () => handlers.delete(handler);
      },
    };
    const code = await runMain(
      ["ingest", "in.jsonl", "--manifest", "m.json", "--export", "e.json", "--ollama-url", ollama.url, "--canary-model", "qwen2.5:1.5b"],
      io,
    );
    deliver("SIGINT");
    expect(out.join("")).toContain("records");
    expect(code).toBe(0);
    expect(killedWith).toBeNull();
    expect(t.stderr()).not.toContain("error:");
    expect((await dirState(dir)).files).toEqual(["e.json", "in.jsonl", "m.json"]);
  });
});
