// A bearer token file, as both ends of the loopback service read it: `serve --token-file PATH`
// (server/bearer-token.ts) and the host adapters' LITTLE_CANARY_TOKEN_FILE
// (integrations/adapter/config.ts), so the two accept exactly the same files. The file holds the
// token and nothing else (surrounding whitespace, such as the newline `echo` writes, is trimmed).
// Refused: a file that cannot be opened, is not a regular file, is larger than the longest token
// allows, is not UTF-8, holds a token that breaks the rules below, or (on POSIX systems) may be read
// or written by its group or by others: a secret any local user can read protects nothing on a
// shared machine. Problems are values naming the rule, never a byte of the content; each caller
// words them with the setting's name.
import { isUtf8 } from "node:buffer";
import { constants } from "node:fs";
import { readSmallFile } from "./read-at-most.js";

/** Fewest characters of a token: shorter secrets can be guessed by a local process that retries. */
const MIN_TOKEN_CHARS = 16;
/** Most characters of a token (a header line stays small). */
const MAX_TOKEN_CHARS = 1024;
/** Largest token file read: the longest token plus room for surrounding whitespace. */
const MAX_TOKEN_FILE_BYTES = MAX_TOKEN_CHARS + 1024;

// Visible ASCII without spaces: what fits in `Authorization: Bearer <token>` unchanged.
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

/** Why a token is refused, or null for a usable one. Never names the token itself. */
export function tokenProblem(token: string): string | null {
  if (token.length === 0) return "the token is empty";
  if (!TOKEN_CHARS.test(token)) return "the token must be visible ASCII characters without spaces";
  if (token.length < MIN_TOKEN_CHARS) return `the token must be at least ${MIN_TOKEN_CHARS} characters`;
  if (token.length > MAX_TOKEN_CHARS) return `the token must be at most ${MAX_TOKEN_CHARS} characters`;
  return null;
}

/** A token file, read: the token, or the rule the file broke (never its content). */
export type TokenFileRead = { readonly ok: true; readonly token: string } | { readonly ok: false; readonly problem: string };

// Non-blocking open: a FIFO at the path would otherwise hold the open (and a hook's whole deadline)
// until some writer appears; opened this way it is refused as "not a regular file" at once. No
// effect on a regular file. Windows has no O_NONBLOCK.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const refused = (problem: string): TokenFileRead => ({ ok: false, problem });

/** Reads and checks the token in `path`; never throws for a file problem (that is the result). */
export async function readTokenFile(path: string, platform: NodeJS.Platform = process.platform): Promise<TokenFileRead> {
  const read = await readSmallFile(
    path,
    MAX_TOKEN_FILE_BYTES,
    (stats) => {
      if (!stats.isFile()) return "not a regular file";
      // Windows has no group/other permission bits to check.
      return platform !== "win32" && (stats.mode & 0o077) !== 0 ? "readable or writable by group or others (chmod 600 it)" : null;
    },
    OPEN_FLAGS,
  );
  if (!("bytes" in read)) return refused("problem" in read ? read.problem : `cannot read file (${read.unreadable})`);
  const { bytes } = read;
  // Judged by the bytes read, not by stat: the file may grow after stat.
  if (bytes.length > MAX_TOKEN_FILE_BYTES) return refused(`larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
  if (!isUtf8(bytes)) return refused("not UTF-8 text");
  // trim drops a byte order mark too (U+FEFF is white space to it).
  const token = bytes.toString("utf8").trim();
  const problem = tokenProblem(token);
  return problem === null ? { ok: true, token } : refused(problem);
}
