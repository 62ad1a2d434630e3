// `serve --token-file PATH`: the service's bearer token, read once at start. The file holds the
// token and nothing else (surrounding whitespace, such as the newline `echo` writes, is trimmed).
// Refused, before the port is bound: a file that cannot be opened, is not a regular file, is
// larger than the longest token allows, is not UTF-8, holds a token that breaks the rules of
// bearer-token.ts, or (on POSIX systems) may be read by its group or by others: a secret any local
// user can read protects nothing on a shared machine. Messages name the rule and the path, never
// a byte of the content.
import { open } from "node:fs/promises";
import { UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";
import { fileReason } from "../core/strict-json-file.js";
import { MAX_TOKEN_CHARS, tokenProblem } from "./bearer-token.js";

/** Largest token file read: the longest token plus room for surrounding whitespace. */
const MAX_TOKEN_FILE_BYTES = MAX_TOKEN_CHARS + 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads and checks the token in `path`; throws UsageError (path and rule, never content) when it is refused. */
export async function readTokenFile(path: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  const refuse = (why: string): never => {
    throw new UsageError(`--token-file ${displayText(path)}: ${why}`);
  };
  const handle = await open(path, "r").catch((error: unknown) => refuse(`cannot read file (${fileReason(error)})`));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) refuse("not a regular file");
    // Windows has no group/other permission bits to check.
    if (platform !== "win32" && (stats.mode & 0o077) !== 0) refuse("readable or writable by group or others (chmod 600 it)");
    if (stats.size > MAX_TOKEN_FILE_BYTES) refuse(`larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
    const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle
        .read(buffer, filled, buffer.byteLength - filled, null)
        .catch((error: unknown) => refuse(`cannot read file (${fileReason(error)})`));
      if (bytesRead === 0) break;
      filled += bytesRead;
      // The file grew after stat: bounded by what was actually read, not by what stat said.
      if (filled > MAX_TOKEN_FILE_BYTES) refuse(`larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
    }
    let text = "";
    try {
      text = utf8.decode(buffer.subarray(0, filled));
    } catch {
      refuse("not UTF-8 text");
    }
    const token = text.trim();
    const problem = tokenProblem(token);
    if (problem !== null) refuse(problem);
    return token;
  } finally {
    await handle.close();
  }
}
