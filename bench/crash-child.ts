// One ingest run for the crash bench: the library's `ingestFiles` (the same call
// `little-canary ingest` makes) with the production file system, except that every fsync is
// slowed down, so a `kill -9` from the parent lands inside the publication window far more often
// than it would on a fast disk. When publication writes its first temp file, the child writes
// "publishing\n" on fd 3 so the parent knows the window began. Exit codes follow the CLI's:
// the run's outcome (0-2), or 3 for a refused run.
//
//   node dist/bench/crash-child.js INPUT --manifest M --export E --ollama-url URL \
//     --fsync-delay-ms 25 [--overwrite]
import { writeSync } from "node:fs";
import { parseArgs } from "node:util";
import { canaryNumCtxForPolicy, ingestFiles } from "../src/ingest/files.js";
import { SecurityPipeline } from "../src/pipeline/pipeline.js";
import { hookedFs } from "./_fs-hooks.js";
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

const REFUSED_EXIT = 3;
try {
  const result = await ingestFiles({
    input: positionals[0] === undefined || positionals[0] === "-" ? process.stdin : positionals[0],
    manifest: values.manifest ?? "manifest.json",
    export: values.export ?? null,
    overwrite: values.overwrite,
    pipeline: (policy) =>
      new SecurityPipeline({
        mode: "full",
        canaryModel: "qwen2.5:1.5b",
        ollamaUrl: values["ollama-url"] ?? "http://127.0.0.1:11434",
        canaryTimeout: 30,
        canaryNumCtx: canaryNumCtxForPolicy(policy),
      }),
    fs,
  });
  process.exitCode = result.outcome;
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = REFUSED_EXIT;
}
