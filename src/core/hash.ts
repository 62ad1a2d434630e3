// Hashes used by ingest evidence: SHA-256 in lowercase hex over UTF-8.
// A string with a lone surrogate is refused rather than hashed, because TextEncoder would
// silently turn it into U+FFFD and two different strings would share a digest.
// The one-shot `crypto.hash` (Node >= 20.12) makes no Hash object per digest: verify takes
// several small digests per record, where the object and its three calls cost more than the bytes.
import { hash } from "node:crypto";
import { UsageError } from "./errors.js";

/** Lowercase hex SHA-256 of `data` (a string is hashed as its UTF-8). */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof data === "string" && !data.isWellFormed()) throw new UsageError("cannot hash a string with a lone surrogate");
  return hash("sha256", data, "hex");
}
