// Builds a capture in our format from the upstream recording in ../shared/corpora (read at test
// time, never copied into the repository) with the library's importer: input and response bytes,
// capture metadata and expectations are carried over unchanged; only the payload hash is
// recomputed over our canonical JSON, and the provenance note says so.
import { readFileSync } from "node:fs";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { capturePayloadSha256 } from "../../src/demo/capture.js";
import { importForeignCapture } from "../../src/demo/import.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const UPSTREAM_CAPTURE = path.resolve(repoRoot, "../shared/corpora/upstream_demo_replay.json");

export type Doc = Record<string, any>;

export function upstreamCaptureDocument(): Doc {
  return importForeignCapture(readFileSync(UPSTREAM_CAPTURE), "upstream_demo_replay.json") as unknown as Doc;
}

export function rehash(doc: Doc): Doc {
  const { payload_sha256: _dropped, ...payload } = doc;
  return { ...payload, payload_sha256: capturePayloadSha256(payload) };
}

export function writeTemp(doc: Doc | string, name = "capture.json"): string {
  const dir = mkdtempSync(path.join(tmpdir(), "lc-demo-"));
  const file = path.join(dir, name);
  writeFileSync(file, typeof doc === "string" ? doc : JSON.stringify(doc, null, 2));
  return file;
}
