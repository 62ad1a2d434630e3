// `serve --token-file PATH`: the service's bearer token, read once at start, before the port is
// bound, by the reader the host adapters share (core/token-file.ts: the file's rules). A refused
// file stops the start with a UsageError naming the path and the rule, never a byte of the content.
import { UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";
import { readTokenFile } from "../core/token-file.js";

/** Reads and checks the token in `path`; throws UsageError (path and rule, never content) when it is refused. */
export async function readServeToken(path: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  const read = await readTokenFile(path, platform);
  if (!read.ok) throw new UsageError(`--token-file ${displayText(path)}: ${read.problem}`);
  return read.token;
}
