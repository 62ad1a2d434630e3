// Reading the allow file of `ingest --allow FILE`: bounded by size before a byte is read, then
// parsed by the one strict reader (documents/allowlist.ts). Every refusal is a UsageError that
// names the flag, never the file's content.
import { open } from "node:fs/promises";
import { UsageError } from "../core/errors.js";
import { MAX_ALLOW_FILE_BYTES, parseAllowlist, type Allowlist } from "../documents/allowlist.js";
import { displayText } from "../core/display-text.js";
import { readAtMost } from "../core/read-at-most.js";

const fileProblem = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "not found";
  return typeof code === "string" && /^E[A-Z]{2,12}$/.test(code) ? code : "unreadable";
};

/**
 * Reads and parses the allow file at `path` (resolved). Refuses one that is not a regular file or
 * over MAX_ALLOW_FILE_BYTES, reading at most one byte more whatever it claims (growing: refused).
 */
export async function readAllowlistFile(path: string): Promise<Allowlist> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new UsageError(`--allow: cannot read ${displayText(path)} (${fileProblem(error)})`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UsageError(`--allow: ${displayText(path)} is not a regular file`);
    if (info.size > MAX_ALLOW_FILE_BYTES) throw new UsageError(`--allow: the file is larger than ${MAX_ALLOW_FILE_BYTES} bytes`);
    return parseAllowlist(await readAtMost(handle, MAX_ALLOW_FILE_BYTES));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--allow: cannot read ${displayText(path)} (${fileProblem(error)})`);
  } finally {
    await handle.close();
  }
}
