// Reading the allow file of `ingest --allow FILE`: bounded by size before a byte is read, then
// parsed by the one strict reader (documents/allowlist.ts). Every refusal is a UsageError that
// names the flag, never the file's content.
import { UsageError } from "../core/errors.js";
import { MAX_ALLOW_FILE_BYTES, parseAllowlist, type Allowlist } from "../documents/allowlist.js";
import { displayText } from "../core/display-text.js";
import { readSmallFile } from "../core/read-at-most.js";

/**
 * Reads and parses the allow file at `path` (resolved). Refuses one that is not a regular file or
 * over MAX_ALLOW_FILE_BYTES, reading at most one byte more whatever it claims (growing: refused).
 */
export async function readAllowlistFile(path: string): Promise<Allowlist> {
  const read = await readSmallFile(path, MAX_ALLOW_FILE_BYTES, (stats) => {
    if (!stats.isFile()) return `${displayText(path)} is not a regular file`;
    return stats.size > MAX_ALLOW_FILE_BYTES ? `the file is larger than ${MAX_ALLOW_FILE_BYTES} bytes` : null;
  });
  if ("bytes" in read) return parseAllowlist(read.bytes);
  throw new UsageError(`--allow: ${"problem" in read ? read.problem : `cannot read ${displayText(path)} (${read.unreadable.replace("_", " ")})`}`);
}
