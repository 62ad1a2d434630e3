// Turns one parsed JSONL value into a RawRecord and lists its record-level problems, the same
// for screen and ingest: a value that is neither a string nor an object is `null` (the reader
// refuses the run); a problem that makes the record unusable is "malformed", a text over the
// byte budget "budget" (screen refuses either; ingest holds the record as malformed or
// over_budget). Messages have fixed wording and never contain input text: a metadata entry is
// named by its position in `Object.keys` order, never by its key. Every byte a record brings
// counts against the total limit (`RawRecord.bytes`), unknown keys and values the reader did not
// build (a SkippedValue, at their input size) included, so an invalid value is never free.
import { isPlainObject } from "../core/guards.js";
import { codePointLength, isBlankText, utf8ByteLength } from "../core/codepoints.js";
import { fieldsShape, LABEL_SHAPE, SkippedValue, STRING_MAP_SHAPE, STRING_SHAPE, type Shape } from "../core/parse-line.js";
import { MAX_LABEL_CHARS, MAX_METADATA_KEY_CHARS, type ReaderKind, type ReaderLimits } from "../documents/reader-limits.js";

export type RecordProblemCode =
  | "unknown_key"
  | "text_invalid"
  | "lone_surrogate"
  | "label_invalid"
  | "label_too_long"
  | "metadata_invalid"
  | "metadata_too_many_keys"
  | "metadata_key_invalid"
  | "metadata_value_invalid"
  | "metadata_value_too_long"
  | "text_too_large";

/** A problem of one record: a stable code, the field path, and a message without input text. */
export interface RecordProblem {
  code: RecordProblemCode;
  /** Field path; metadata entries by position. Never contains input text. */
  path: (string | number)[];
  /** `item N: …` (screen) or `record N: …` (ingest): the detail after the record's name. */
  message: string;
  /** The message without its `item N: ` / `record N: ` prefix, for a refusal that names the line instead. */
  detail: string;
  /** "malformed": the record is unusable. "budget": well-formed but over a size budget. */
  severity: "malformed" | "budget";
}

/** One record as the reader produced it, with the problems that make it unusable. */
export interface RawRecord {
  /** 0-based among non-blank lines. */
  index: number;
  /** 1-based line number (blank lines count). */
  line: number;
  /** Field values as parsed (`undefined`: absent); a value of the wrong kind that needs building is a SkippedValue (type, size). */
  text: unknown;
  id: unknown;
  source: unknown;
  metadata: unknown;
  /** Which of the known keys were present (a string line has only `text`). */
  keys: { text: boolean; id: boolean; source: boolean; metadata: boolean };
  /** Keys other than the allowed ones, in input order (input text: never put into messages). */
  unknownKeys: string[];
  /** UTF-8 size of `text` when it is a string (a lone surrogate counts 3 bytes), else 0. */
  textBytes: number;
  /**
   * What the record counts against `maxTotalBytes`: the UTF-8 bytes of every string it holds
   * (text, id, source, metadata keys and values, unknown keys) plus the input size of every
   * SkippedValue. Other in-memory values (library inputs) count nothing.
   */
  bytes: number;
  problems: RecordProblem[];
  /** The line's bytes as read (without its line break), copied, when asked for (`keepLineBytes`): a record cache names a record by their SHA-256. */
  lineBytes?: Buffer;
}

/** The keys of a record, the same in screen and ingest (a team screens the JSONL it later ingests). */
const RECORD_KEYS: ReadonlySet<string> = new Set(["text", "id", "source", "metadata"]);

/** A built JSON object: a SkippedValue (an object the shape did not build) is not one. */
function isBuiltObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && !(value instanceof SkippedValue);
}

/**
 * What the reader builds of a line (screen and ingest alike): a string, or an object of a string `text`,
 * string or null labels and string metadata; anything else is checked but kept as a SkippedValue, never built.
 */
export const RECORD_SHAPE: Shape = fieldsShape(
  [
    ["text", STRING_SHAPE],
    ["id", LABEL_SHAPE],
    ["source", LABEL_SHAPE],
    ["metadata", STRING_MAP_SHAPE],
  ],
  STRING_SHAPE.scalars,
);

/** The bytes one value counts (see `RawRecord.bytes`). */
function valueBytes(value: unknown): number {
  if (typeof value === "string") return utf8ByteLength(value);
  if (value instanceof SkippedValue) return value.bytes;
  return 0;
}

/** `textBytes` is the text's size, already measured. */
function recordBytes(fields: Record<string, unknown>, textBytes: number): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(fields)) {
    if (!RECORD_KEYS.has(key)) bytes += utf8ByteLength(key);
    if (key === "text") {
      bytes += typeof value === "string" ? textBytes : valueBytes(value);
    } else if (key === "metadata" && isBuiltObject(value)) {
      for (const [name, entry] of Object.entries(value)) bytes += utf8ByteLength(name) + valueBytes(entry);
    } else {
      bytes += valueBytes(value);
    }
  }
  return bytes;
}

function own(object: Record<string, unknown>, key: string): { present: boolean; value: unknown } {
  return Object.hasOwn(object, key) ? { present: true, value: object[key] } : { present: false, value: undefined };
}

interface BuildContext {
  index: number;
  kind: ReaderKind;
  limits: ReaderLimits;
  /** The parser saw an escaped lone surrogate somewhere in this line. */
  loneSurrogate: boolean;
}

/** Builds the record for a parsed line, or returns null when the value is not a string or an object (the caller refuses the run). */
export function buildRecord(value: unknown, line: number, context: BuildContext): RawRecord | null {
  let fields: Record<string, unknown>;
  if (typeof value === "string") fields = { text: value };
  else if (isBuiltObject(value)) fields = value;
  else return null;

  const text = own(fields, "text");
  const id = own(fields, "id");
  const source = own(fields, "source");
  const metadata = own(fields, "metadata");
  const unknownKeys = Object.keys(fields).filter((key) => !RECORD_KEYS.has(key));
  const textBytes = typeof text.value === "string" ? utf8ByteLength(text.value) : 0;

  const record: RawRecord = {
    index: context.index,
    line,
    text: text.value,
    id: id.value,
    source: source.value,
    metadata: metadata.value,
    keys: { text: text.present, id: id.present, source: source.present, metadata: metadata.present },
    unknownKeys,
    textBytes,
    bytes: recordBytes(fields, textBytes),
    problems: [],
  };
  record.problems = listProblems(record, context);
  return record;
}

function listProblems(record: RawRecord, context: BuildContext): RecordProblem[] {
  const problems: RecordProblem[] = [];
  const i = context.index;
  const item = context.kind === "screen" ? `item ${i}` : `record ${i}`;
  // `name` prefixes the message; `item i` for the per-field messages, as they were first written.
  const add = (code: RecordProblemCode, path: (string | number)[], detail: string, severity?: RecordProblem["severity"], name = `item ${i}`): void => {
    problems.push(problemOf(code, path, detail, name, severity));
  };

  if (record.unknownKeys.length > 0) {
    add("unknown_key", [], "unknown_keys (allowed: text, id, source, metadata)", "malformed", item);
  }

  const text = record.text;
  if (typeof text !== "string" || text.length === 0) {
    add("text_invalid", ["text"], "'text' must be a non-empty string");
  } else if (isBlankText(text)) {
    // Nothing to screen: refused (screen) or held as malformed (ingest) like an empty text.
    add("text_invalid", ["text"], "'text' must not be only whitespace");
  } else {
    if (!text.isWellFormed()) {
      add("lone_surrogate", ["text"], "'text' is not valid Unicode (lone surrogate)");
    }
    if (record.textBytes > context.limits.maxItemBytes) {
      if (context.kind === "screen") add("text_too_large", ["text"], `'text' exceeds ${context.limits.maxItemBytes} bytes`, "budget");
      else add("text_too_large", ["text"], `text exceeds ${context.limits.maxItemBytes} bytes`, "budget", `record ${i}`);
    }
  }

  for (const label of ["id", "source"] as const) {
    const value = record[label];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") {
      add("label_invalid", [label], `'${label}' must be a string`);
    } else if (codePointLength(value) > MAX_LABEL_CHARS) {
      add("label_too_long", [label], `'${label}' exceeds ${MAX_LABEL_CHARS} characters`);
    } else if (!value.isWellFormed()) {
      add("lone_surrogate", [label], `'${label}' is not valid Unicode (lone surrogate)`);
    }
  }

  if (record.keys.metadata) {
    const problem = metadataProblem(record.metadata, item, context.limits);
    if (problem !== null) problems.push(problem);
  }

  // Every string of a record without other problems is one of the fields checked above, so this
  // only fires if that reasoning is ever broken by a change; it keeps "any string" true.
  const alreadyMalformed = problems.some((p) => p.severity === "malformed");
  if (context.loneSurrogate && !alreadyMalformed) {
    add("lone_surrogate", [], "a string is not valid Unicode (lone surrogate)", "malformed", item);
  }
  return problems;
}

/** A problem whose message is `detail` after `name` (`item i` or `record i`). */
function problemOf(
  code: RecordProblemCode,
  path: (string | number)[],
  detail: string,
  name: string,
  severity: RecordProblem["severity"] = "malformed",
): RecordProblem {
  return { code, path, message: `${name}: ${detail}`, detail, severity };
}

/** The first metadata problem in a fixed order (object, key count, then entry by entry); `name` is `item i` or `record i`. */
function metadataProblem(metadata: unknown, name: string, limits: ReaderLimits): RecordProblem | null {
  const problem = (code: RecordProblemCode, path: (string | number)[], detail: string): RecordProblem => problemOf(code, path, detail, name);
  if (!isBuiltObject(metadata)) return problem("metadata_invalid", ["metadata"], "'metadata' must be an object");
  const entries = Object.entries(metadata);
  if (entries.length > limits.maxMetadataKeys) {
    return problem("metadata_too_many_keys", ["metadata"], `'metadata' exceeds ${limits.maxMetadataKeys} keys (--max-metadata-keys)`);
  }
  for (let position = 0; position < entries.length; position++) {
    const [key, value] = entries[position] as [string, unknown];
    const path = ["metadata", position];
    if (key.length === 0 || codePointLength(key) > MAX_METADATA_KEY_CHARS) {
      return problem("metadata_key_invalid", path, `metadata keys must be non-empty strings of at most ${MAX_METADATA_KEY_CHARS} characters`);
    }
    if (!key.isWellFormed()) return problem("lone_surrogate", path, "metadata key is not valid Unicode (lone surrogate)");
    if (typeof value !== "string") return problem("metadata_value_invalid", path, "metadata values must be strings");
    if (codePointLength(value) > limits.maxMetadataValueChars) {
      return problem("metadata_value_too_long", path, `metadata value exceeds ${limits.maxMetadataValueChars} characters (--max-metadata-value-chars)`);
    }
    if (!value.isWellFormed()) {
      return problem("lone_surrogate", path, "metadata value is not valid Unicode (lone surrogate)");
    }
  }
  return null;
}
