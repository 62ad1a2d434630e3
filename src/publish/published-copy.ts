// Copying a published file out (the manifest `ingest --json` prints) without holding it: read in
// chunks and hashed as it goes, so a file that changed after publication is reported instead of
// passed on as the published document.
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { PublishError } from "./targets.js";
import { displayText } from "../core/display-text.js";

/**
 * Hands the bytes of `path` to `write` in order (awaiting each), then throws PublishError if
 * they do not hash to `sha256`: the caller has then passed on bytes that are not the published
 * document and must say so.
 */
export async function copyPublishedFile(path: string, sha256: string, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const hash = createHash("sha256");
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  let writeFailure: { error: unknown } | null = null;
  try {
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      try {
        await write(chunk as Buffer);
      } catch (error) {
        writeFailure = { error };
        break;
      }
    }
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new PublishError(`could not read the published file ${displayText(path)}${typeof code === "string" ? ` (${code})` : ""}`, { cause: error });
  } finally {
    stream.destroy();
  }
  if (writeFailure !== null) throw writeFailure.error;
  if (hash.digest("hex") !== sha256)
    throw new PublishError(`the published file ${displayText(path)} changed after publication; what was printed is not the published document`);
}
