// `npm run demo:import -- SOURCE OUT`: convert a demo capture recorded by another implementation
// (for example ../shared/corpora/upstream_demo_replay.json, recorded by the Python package with
// Ollama) into our format, so `little-canary demo --replay --capture OUT` can replay it.
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { importForeignCapture } from "./foreign-capture.js";

async function main(argv: readonly string[]): Promise<number> {
  const [source, out] = argv;
  if (!source || !out) {
    process.stderr.write("usage: npm run demo:import -- SOURCE OUT\n");
    return 2;
  }
  try {
    const capture = importForeignCapture(await readFile(source), basename(source));
    await writeFile(out, `${JSON.stringify(capture, null, 2)}\n`, { flag: "wx" });
    process.stdout.write(`wrote ${out} (payload_sha256 ${capture.payload_sha256})\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : "import failed"}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
