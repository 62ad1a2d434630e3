// Reads a manifest or export file for verification: bounded size, strict UTF-8, no BOM, and the
// strict duplicate-rejecting parser of the JSONL reader (a document with two `text` keys could
// otherwise mean different things to different consumers). Content is never echoed.
import { readFile, stat } from "node:fs/promises";
import { LittleCanaryError } from "../errors.js";
import { parseJsonLine } from "../jsonl/parse-line.js";

/** Larger than any export the default limits allow (8 MiB of text, escaped up to 6×, plus framing). */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

export interface ReadDocument {
  readonly value: unknown;
  readonly bytes: Uint8Array;
}

export async function readJsonDocument(path: string, label: "manifest" | "export"): Promise<ReadDocument> {
  let bytes: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error("not a file");
    if (info.size > MAX_DOCUMENT_BYTES) throw new Error("too large");
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      error instanceof Error && error.message === "too large"
        ? `larger than ${MAX_DOCUMENT_BYTES} bytes`
        : error instanceof Error && error.message === "not a file"
          ? "not a regular file"
          : code === "ENOENT"
            ? "file not found"
            : typeof code === "string" && /^E[A-Z]{2,12}$/.test(code)
              ? code
              : "unreadable";
    throw new LittleCanaryError("io", `cannot read ${label} ${path} (${reason})`);
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw new LittleCanaryError("io", `cannot read ${label} (starts with a byte order mark)`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new LittleCanaryError("io", `cannot read ${label} (not valid UTF-8)`);
  }
  const parsed = parseJsonLine(text);
  if (!parsed.ok) throw new LittleCanaryError("io", `cannot read ${label} (${parsed.code.replaceAll("_", " ")})`);
  return { value: parsed.value, bytes };
}
