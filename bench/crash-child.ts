// One ingest run for the crash bench: the real CLI command (runIngest) with the production file
// system, except that every fsync is slowed down, so a `kill -9` from the parent lands inside the
// publication window far more often than it would on a fast disk. When publication writes its
// first temp file, the child writes "publishing\n" on fd 3 so the parent knows the window began.
//
//   node dist/bench/crash-child.js INPUT --manifest M --export E --ollama-url URL \
//     --fsync-delay-ms 25 [--overwrite]
import { writeSync } from "node:fs";
import { parseArgs } from "node:util";
import { runIngest } from "../cli/commands/ingest.js";
import { describeFailure } from "../cli/exit-codes.js";
import { processIo, writeOut } from "../cli/io.js";
import { hookedFs } from "../src/publish/fs-hooks.js";
import { nodePublishFs } from "../src/publish/fs.js";

const MARKER_FD = 3;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    manifest: { type: "string" },
    export: { type: "string" },
    "ollama-url": { type: "string" },
    "fsync-delay-ms": { type: "string", default: "25" },
    overwrite: { type: "boolean", default: false },
  },
});

const delayMs = Number(values["fsync-delay-ms"]);
let announced = false;
const fs = hookedFs(nodePublishFs, async (call) => {
  if (!announced && call.op === "open" && call.path.endsWith(".tmp")) {
    announced = true;
    writeSync(MARKER_FD, "publishing\n");
  }
  if (call.op === "fsync" && delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
});

const io = processIo();
try {
  process.exitCode = await runIngest(
    positionals[0] ?? "-",
    {
      manifest: values.manifest ?? "manifest.json",
      ...(values.export !== undefined ? { export: values.export } : {}),
      overwrite: values.overwrite,
      mode: "full",
      canaryModel: "qwen2.5:1.5b",
      ollamaUrl: values["ollama-url"] ?? "http://127.0.0.1:11434",
      timeout: 30,
      canary: true,
      concurrency: 1,
    },
    io,
    { fs },
  );
} catch (error) {
  const failure = describeFailure("ingest", error);
  if (failure.message !== null) await writeOut(io.stderr, `error: ${failure.message}\n`);
  process.exitCode = failure.exitCode;
}
