// Builds a capture in our format from the upstream recording in ../shared/corpora (read at test
// time, never copied into the repository). Input and response bytes, capture metadata and
// expectations are carried over unchanged; only the payload hash is recomputed over our
// canonical JSON, and the provenance note says so.
import { readFileSync } from "node:fs";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { capturePayloadSha256 } from "../../src/demo/capture.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const UPSTREAM_CAPTURE = path.resolve(repoRoot, "../shared/corpora/upstream_demo_replay.json");

export type Doc = Record<string, any>;

export function upstreamCaptureDocument(): Doc {
  const upstream = JSON.parse(readFileSync(UPSTREAM_CAPTURE, "utf8")) as Doc;
  const upstreamHash = upstream["payload_sha256"] as string;
  const { payload_sha256: _dropped, ...payload } = upstream;
  payload["capture"] = {
    ...payload["capture"],
    provenance_note:
      `${payload["capture"].provenance_note} [Re-hashed for little-canary (TypeScript) from the upstream ` +
      `capture whose Python-formatted payload_sha256 was ${upstreamHash}.]`,
  };
  return { ...payload, payload_sha256: capturePayloadSha256(payload) };
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
