// Replays a capture that another implementation recorded with a real model (for example the
// Python package's `upstream_demo_replay.json`, kept outside this repository) through this
// library, and checks what the suite checks on its own hand-written capture:
//   npm run bench:upstream-replay -- --capture <file>
// - the import keeps every recorded response, expectation and digest and states where it came from;
// - the analyzer sees no signal in the clean reply and a hard block with persona_shift,
//   instruction_echo and canary_compromise in the c1-05 reply;
// - replaying the imported capture is REPLAY VERIFIED, naming the recorded model;
// - the foreign file itself is refused (its hash is not our canonical hash).
// One line per check, then `upstream_replay checks=N failed=M`; exit 1 when any check fails,
// 2 when --capture is missing or unreadable. The file is read, never copied.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeResponse } from "../test/support/analyze-response.js";
import { parseCapture } from "../src/demo/capture.js";
import { importForeignCapture } from "../scripts/foreign-capture.js";
import { runReplay } from "../src/demo/replay.js";

const USAGE = "npm run bench:upstream-replay -- --capture ../shared/corpora/upstream_demo_replay.json";

interface RecordedCase {
  readonly id: string;
  readonly input: string;
  readonly response: string;
  readonly expected: unknown;
}

function captureArg(argv: readonly string[]): string | null {
  const index = argv.indexOf("--capture");
  const value = index >= 0 ? argv[index + 1] : argv.find((a) => a.startsWith("--capture="))?.slice("--capture=".length);
  return value === undefined || value.startsWith("--") ? null : value;
}

async function main(): Promise<number> {
  const path = captureArg(process.argv.slice(2));
  if (path === null || !existsSync(path)) {
    console.error(path === null ? "no capture given: pass --capture <file>" : `--capture ${path}: file not found`);
    console.error(`usage: ${USAGE}`);
    return 2;
  }
  const bytes = readFileSync(path);
  const original = JSON.parse(bytes.toString("utf8")) as {
    payload_sha256: string;
    capture: { model_digest: string; provenance_note: string };
    cases: RecordedCase[];
  };
  const results: Array<[string, boolean]> = [];
  const check = (name: string, ok: boolean): void => {
    results.push([name, ok]);
    console.log(`${ok ? "ok  " : "FAIL"} ${name}`);
  };

  const imported = importForeignCapture(bytes, "upstream_demo_replay.json");
  check(
    "import keeps every recorded response",
    JSON.stringify(imported.cases.map((c) => c.response)) === JSON.stringify(original.cases.map((c) => c.response)),
  );
  check("import keeps every expectation", JSON.stringify(imported.cases.map((c) => c.expected)) === JSON.stringify(original.cases.map((c) => c.expected)));
  check("import keeps the model digest", imported.capture.model_digest === original.capture.model_digest);
  const note = imported.capture.provenance_note ?? "";
  check("import states where it came from", note.includes(original.capture.provenance_note) && note.includes(original.payload_sha256));
  check("import is re-hashed over our canonical JSON", imported.payload_sha256 !== original.payload_sha256);
  check("the imported capture loads", parseCapture(new TextEncoder().encode(JSON.stringify(imported))).kind === "ok");

  const byId = (id: string): RecordedCase | undefined => original.cases.find((c) => c.id === id);
  const clean = byId("clean");
  const attack = byId("c1-05");
  const cleanResult = clean ? analyzeResponse(clean.input, clean.response) : null;
  check(
    "clean reply: no signal, no block",
    cleanResult !== null && cleanResult.signals.length === 0 && cleanResult.riskScore === 0 && !cleanResult.shouldBlock,
  );
  const attackResult = attack ? analyzeResponse(attack.input, attack.response) : null;
  const categories = new Set(attackResult?.signals.map((s) => s.category) ?? []);
  check(
    "c1-05 reply: hard block with persona_shift, instruction_echo, canary_compromise",
    attackResult?.hardBlocked === true &&
      attackResult.riskScore === 1 &&
      ["persona_shift", "instruction_echo", "canary_compromise"].every((c) => categories.has(c)),
  );

  const dir = mkdtempSync(join(tmpdir(), "lc-upstream-replay-"));
  const importedPath = join(dir, "imported.json");
  writeFileSync(importedPath, JSON.stringify(imported));
  const replayed = await runReplay({ capturePath: importedPath });
  check("replay of the imported capture is REPLAY VERIFIED", replayed.status === "REPLAY VERIFIED");
  console.log(`     model=${String(replayed.fields["model"])} source_sha=${String(replayed.fields["capture_source_sha"])}`);
  const foreign = await runReplay({ capturePath: path });
  check("the foreign file itself is refused as an integrity failure", foreign.status === "REPLAY INTEGRITY FAILURE");

  const failed = results.filter(([, ok]) => !ok).length;
  console.log(`upstream_replay checks=${results.length} failed=${failed} (recorded model output, replayed offline)`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
  },
);
