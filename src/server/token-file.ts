// `serve --token-file PATH`: read once at start, before the port is bound, by the rules of
// core/token-file.ts (shared with the host adapters).
import { UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";
import { readTokenFile } from "../core/token-file.js";

/** Reads and checks the token in `path`; throws UsageError (path and rule, never content) when it is refused. */
export async function readServeToken(path: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  const read = await readTokenFile(path, platform);
  if (!read.ok) throw new UsageError(`--token-file ${displayText(path)}: ${read.problem}`);
  return read.token;
}
