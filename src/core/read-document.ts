// Reads a manifest, export or index whole for verification: bounded size, strict UTF-8, no BOM,
// and the strict duplicate-rejecting parser (a document with two `text` keys could otherwise
// mean different things to different consumers). Content is never echoed. Memory: the bytes (at
// most MAX_DOCUMENT_BYTES, parsed as bytes) plus the values built: an export's within EXPORT_SHAPE,
// any other within MAX_DOCUMENT_VALUES (docs/ingest.md, "Verify memory").
import { readFile, stat } from "node:fs/promises";
import { LittleCanaryError } from "./errors.js";
import { sha256Hex } from "./hash.js";
import { readStrictDocument } from "../core/strict-document.js";
import { ANY_SHAPE, fieldsShape, LABEL_SHAPE, SKIP_SHAPE, STRING_MAP_SHAPE, STRING_SHAPE, type Shape } from "./parse-line.js";
import { displayText } from "./display-text.js";
import { fileReason, StrictFileError } from "./strict-json-stream.js";

/** Larger than any export the default limits allow (8 MiB of text, escaped up to 6×, plus framing). */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

/**
 * Most JSON values (strings, numbers, containers…) built from one document. A manifest of a run
 * under the default limits (1,000 records, at most 8 segments of about 40 values each) has
 * under 500,000; this leaves room for runs of about 20,000 short records while keeping the
 * parsed tree to about 350 MB even for a document made of nothing but `{}`.
 */
export const MAX_DOCUMENT_VALUES = 2_000_000;

/** Which document is read (named in errors): a manifest, an export, or the index of a sharded run. */
export type DocumentLabel = "manifest" | "export" | "index";

export interface ReadDocument {
  readonly value: unknown;
  /** SHA-256 (hex) of the exact bytes read. */
  readonly sha256: string;
}

const EXPORT_RECORD = fieldsShape([
  ["index", Object.freeze({ scalars: new Set(["number"] as const) })],
  ["id", LABEL_SHAPE],
  ["source", LABEL_SHAPE],
  ["sha256", STRING_SHAPE],
  ["material_sha256", STRING_SHAPE],
  ["metadata", STRING_MAP_SHAPE],
  ["text", STRING_SHAPE],
]);

/**
 * What verify builds of an export: exactly the little-canary-ingest-export/v1 fields with their
 * types. Anything else keeps its key but becomes a SkippedValue, which every check treats as a
 * wrong value, so the verdict is the same as for the fully built document.
 */
export const EXPORT_SHAPE: Shape = fieldsShape([
  ["schema", STRING_SHAPE],
  ["manifest_schema", STRING_SHAPE],
  ["manifest_sha256", STRING_SHAPE],
  ["policy_name", STRING_SHAPE],
  ["records", Object.freeze({ scalars: SKIP_SHAPE.scalars, array: { items: EXPORT_RECORD } })],
]);

function unreadable(label: DocumentLabel, path: string | null, reason: string): LittleCanaryError {
  return new LittleCanaryError("io", `cannot read ${label}${path === null ? "" : ` ${displayText(path)}`} (${reason})`);
}

/**
 * The message of a failed read of `label`: the reader's own (LittleCanaryError "io": it names the
 * rule, never content), or else one that names only the document and its path.
 */
export function readFailureMessage(error: unknown, label: DocumentLabel, path: string | null = null): string {
  return error instanceof LittleCanaryError && error.code === "io" ? error.message : `cannot read ${label}${path === null ? "" : ` ${displayText(path)}`}`;
}

/**
 * Parses a document's bytes strictly (UTF-8, no BOM, no duplicate keys, bounded size and value
 * count). Throws LittleCanaryError("io") naming the document and the rule, never its content.
 * A string is taken as the document's text (it is hashed as UTF-8).
 */
export function parseJsonDocument(
  input: Uint8Array | string,
  label: DocumentLabel,
  path: string | null = null,
  maxValues: number = MAX_DOCUMENT_VALUES,
  why?: string,
): ReadDocument {
  if (typeof input === "string" && !input.isWellFormed()) throw unreadable(label, path, "not valid UTF-8");
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) throw unreadable(label, path, `larger than ${MAX_DOCUMENT_BYTES} bytes`);
  // Parsed as bytes (strict UTF-8 is checked first): the document is never held twice.
  const parsed = readStrictDocument(bytes, { shape: label === "export" ? EXPORT_SHAPE : ANY_SHAPE, maxValues });
  if (!parsed.ok) throw unreadable(label, path, refusalReason(parsed.code, maxValues, "", why));
  return { value: parsed.value, sha256: sha256Hex(bytes) };
}

/**
 * The words for a strict reader's refusal `code` in a message; `where` says which value budget was
 * exceeded, and `why` replaces the words that end a refusal by it.
 */
export function refusalReason(code: string, maxValues: number, where = "", why = ", the most verify holds"): string {
  if (code === "too_many_values") return `more than ${maxValues} JSON values${where}${why}`;
  if (code === "invalid_utf8") return "not valid UTF-8";
  return code === "byte_order_mark" ? "starts with a byte order mark" : code.replaceAll("_", " ");
}

/**
 * Why a file could not be read, in words: "file not found", "not a regular file", an errno code
 * (with what it means for the few a read meets most: `EACCES: no permission to read it`), or
 * "unreadable".
 */
export function fileReasonWords(error: unknown): string {
  const reason = error instanceof StrictFileError ? error.reason : fileReason(error);
  if (reason === "not_found") return "file not found";
  if (reason === "not_a_file") return "not a regular file";
  if (reason === "changed")
    return "its bytes did not match its size when opened: something wrote to it while it was read, or it is not an ordinary file (such as one under /proc)";
  const meaning = READ_ERRNO_WORDS[reason];
  return meaning === undefined ? reason : `${reason}: ${meaning}`;
}

/** What the errno codes a file read meets most mean to the user who must fix them. */
const READ_ERRNO_WORDS: Readonly<Record<string, string>> = {
  EACCES: "no permission to read it",
  EPERM: "no permission to read it",
  ELOOP: "too many symlinks in its path",
  ENOTDIR: "a part of its path is not a directory",
  EIO: "the disk could not be read",
};

/**
 * A lower cap on the JSON values built of one document (at most MAX_DOCUMENT_VALUES), and the
 * words its refusal ends with instead of ", the most verify holds" (they say why it is lower).
 */
export interface ValueCap {
  readonly maxValues: number;
  readonly why: string;
}

/** Reads and parses one document file (see parseJsonDocument), within `cap` when given. */
export async function readJsonDocument(path: string, label: DocumentLabel, cap?: ValueCap): Promise<ReadDocument> {
  let bytes: Uint8Array;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new StrictFileError("not_a_file");
    if (info.size > MAX_DOCUMENT_BYTES) throw unreadable(label, path, `larger than ${MAX_DOCUMENT_BYTES} bytes`);
    bytes = await readFile(path);
  } catch (error) {
    throw error instanceof LittleCanaryError ? error : unreadable(label, path, fileReasonWords(error));
  }
  return parseJsonDocument(bytes, label, path, cap?.maxValues, cap?.why);
}
