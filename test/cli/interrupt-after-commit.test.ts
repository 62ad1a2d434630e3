// Ctrl-C that lands just after the commit: the pair is published and verifies, so the run keeps
// its normal exit code, says the interrupt came too late, and leaves no `.lock` behind; the
// signal handler stays registered until the lock is released, so no interrupt in that window can
// kill the process with the lock still on disk.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runIngest } from "../../cli/commands/ingest.js";
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
  it("issue 12 B9: SIGINT just after the commit keeps exit 0, prints the committed warning, releases the lock before the handler goes", async () => {
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
