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

/** Which UTF-16 units are lowercase hex digits (0-9, a-f). */
const LOWER_HEX = new Uint8Array(128);
for (const digit of "0123456789abcdef") LOWER_HEX[digit.charCodeAt(0)] = 1;

/**
 * Whether `value` is a SHA-256 as sha256Hex writes it: 64 lowercase hex digits. A loop over a
 * table, not a regular expression: verify asks this several times per record, where the regular
 * expression's call cost was most of its time.
 */
export function isSha256Hex(value: unknown): value is string {
  if (typeof value !== "string" || value.length !== 64) return false;
  for (let at = 0; at < 64; at++) {
    const unit = value.charCodeAt(at);
    if (unit >= 128 || LOWER_HEX[unit] !== 1) return false;
  }
  return true;
}
