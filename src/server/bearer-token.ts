// The optional bearer token of the service (`serve --token-file`, library option `token`): its file,
// read once at start by the rules of core/token-file.ts, and the one comparison of a request's
// `Authorization` header with it.
// Both sides are hashed to SHA-256 first and compared with crypto.timingSafeEqual, so the time a
// comparison takes depends neither on where a guess first differs nor on its length. The token is
// held only as its digest; it never reaches a log line, an error message or an answer.
import { createHash, timingSafeEqual } from "node:crypto";
import { UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";
import { readTokenFile, tokenProblem } from "../core/token-file.js";
import { errorReply, type Reply } from "./json-reply.js";

/** A token held for comparison: its SHA-256 only. */
export interface BearerToken {
  readonly digest: Buffer;
}

const digestOf = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

/** The token ready for comparison; throws UsageError (without the token) when it breaks a rule of core/token-file.ts. */
export function bearerToken(token: string): BearerToken {
  const problem = tokenProblem(token);
  if (problem !== null) throw new UsageError(`token refused: ${problem}`);
  return Object.freeze({ digest: digestOf(token) });
}

/** Reads and checks the token in `path` (`serve --token-file`); throws UsageError (path and rule, never content) when it is refused. */
export async function readServeToken(path: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  const read = await readTokenFile(path, platform);
  if (!read.ok) throw new UsageError(`--token-file ${displayText(path)}: ${read.problem}`);
  return read.token;
}

/** The fixed 401 replies, by name, for tests and docs: `missing` (no usable credentials: RFC 6750 asks for the challenge alone) and `wrong` (a token that is not the service's). */
export const UNAUTHORIZED = {
  missing: errorReply(401, "unauthorized: send Authorization: Bearer <token>", {
    headers: { "www-authenticate": 'Bearer realm="little-canary"' },
    close: true,
  }),
  wrong: errorReply(401, "unauthorized: invalid token", {
    headers: { "www-authenticate": 'Bearer realm="little-canary", error="invalid_token"' },
    close: true,
  }),
} as const;

/**
 * The 401 reply for a request whose `Authorization` values (every one it sent, raw) do not carry
 * the token, or null when exactly one `Bearer` credential equal to the token was sent.
 */
export function authorize(expected: BearerToken, authorization: readonly string[]): Reply | null {
  if (authorization.length === 0) return UNAUTHORIZED.missing;
  // Two Authorization headers are ambiguous: refused rather than picking one.
  if (authorization.length > 1) return UNAUTHORIZED.wrong;
  const match = /^bearer +(\S{1,4096}) *$/i.exec(authorization[0] ?? "");
  if (match === null) return UNAUTHORIZED.missing;
  // Equal-length digests: timingSafeEqual never throws and never short-circuits.
  return timingSafeEqual(digestOf(match[1] ?? ""), expected.digest) ? null : UNAUTHORIZED.wrong;
}
