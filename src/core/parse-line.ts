// Strict JSON parser for one JSONL line or one document (terminator removed).
//
// Contract: for a well-formed RFC 8259 text with no duplicate keys, no nesting deeper than
// `maxDepth` and only finite numbers, `parseJsonLine` equals `JSON.parse(text)`. Anything else is a
// failure value with a stable code; the parser never throws on any input and never echoes it.
//
// It parses UTF-8 bytes (`parseJsonBytes`; a string is encoded first), after checking that they
// are strict UTF-8: the structure is ASCII, so only string tokens are ever decoded, and a large
// document is never held twice (as bytes and as decoded text).
//
// Why not `JSON.parse` for the line: it lets the last duplicate key win silently, and it cannot
// tell us which strings came from an escaped lone surrogate. The structure, keys, duplicates,
// depth and numbers are all handled here; `JSON.parse` is used only as a native unescaper for a
// single string token that contains a backslash (its string grammar is exactly RFC 8259's, and
// it keeps `\ud800` as a lone code unit, which we then detect).
//
// Why iterative: hostile nesting must end in a refusal, never in a stack overflow. Objects are built with `Object.fromEntries`, which
// defines own data properties, so a `__proto__` key is an ordinary key and never touches a
// prototype (the same thing `JSON.parse` does).
//
// Why shapes: memory. A caller that knows what it can use (a JSONL record: a string `text`,
// string labels, an object of strings as metadata) passes a `Shape`, and a value the shape does
// not accept is still checked by every rule above (syntax, duplicate keys at any depth, depth,
// finite numbers) but never built: it becomes one small `SkippedValue` that records its JSON
// type and its size in UTF-8 bytes. So `{"text":[{},{},…]}` costs a few bytes, not a tree of
// a hundred thousand objects. A value budget (`maxValues`) bounds what is built when the
// shape accepts anything, together with the keys a skipped object must hold while it is open
// (to refuse duplicates).
//
// Choices beyond RFC 8259 (documented for users):
// - `NaN`, `Infinity` and `-Infinity` are not JSON and are malformed.
// - Numbers become JS numbers (integers above 2^53 lose precision, as with `JSON.parse`); a
//   number whose value is not finite (`1e400`) is refused as `non_finite_number` rather than
//   silently becoming Infinity.

import { Buffer, isUtf8 } from "node:buffer";

/** Deepest nesting of arrays and objects the strict parser accepts. */
export const MAX_NESTING_DEPTH = 64;

export type LineParseErrorCode = "malformed_json" | "duplicate_key" | "too_deep" | "non_finite_number" | "too_many_values" | "invalid_utf8";

export type LineParseResult =
  | { ok: true; value: unknown /** some string (key or value) holds an escaped lone surrogate */; loneSurrogate: boolean }
  | { ok: false; code: LineParseErrorCode; message: string };

/** The JSON type of a value. */
export type JsonType = "string" | "number" | "boolean" | "null" | "object" | "array";

/**
 * A value that was checked but not built because its shape did not accept it. It holds no
 * input text: only the JSON type and the value's size in UTF-8 bytes as written in the input
 * (NaN when the streaming reader, strict-json-stream.ts, skipped it: its tokens carry no offsets).
 */
export class SkippedValue {
  constructor(
    readonly type: JsonType,
    readonly bytes: number,
  ) {
    Object.freeze(this);
  }
}

/**
 * What the parser builds at one position. `scalars` lists the scalar types built as values;
 * `object` and `array` say how a container is built, and a missing one means a container of
 * that kind becomes a SkippedValue. Inside a skipped container nothing is built at all.
 */
export interface Shape {
  readonly scalars: ReadonlySet<"string" | "number" | "boolean" | "null">;
  readonly object?: { readonly fields?: ReadonlyMap<string, Shape>; readonly rest: Shape };
  readonly array?: { readonly items: Shape };
}

/** Builds everything: plain JSON. */
export const ANY_SHAPE: Shape = (() => {
  const shape = {
    scalars: new Set(["string", "number", "boolean", "null"] as const),
    object: { rest: undefined as unknown as Shape },
    array: { items: undefined as unknown as Shape },
  };
  shape.object.rest = shape;
  shape.array.items = shape;
  return Object.freeze(shape) as Shape;
})();

/** Builds nothing: every value becomes a SkippedValue. */
export const SKIP_SHAPE: Shape = Object.freeze({ scalars: new Set<never>() });

/** Options of `parseJsonLine`. */
export interface ParseOptions {
  /** Deepest nesting accepted (containers); default MAX_NESTING_DEPTH. */
  readonly maxDepth?: number;
  /** What to build; default ANY_SHAPE. */
  readonly shape?: Shape;
  /** Most values built (scalars, containers and skipped values); default unlimited. */
  readonly maxValues?: number;
}

type BuildFrame =
  | { kind: "array"; build: true; items: unknown[]; itemShape: Shape }
  | { kind: "object"; build: true; entries: Map<string, unknown>; key: string; shape: NonNullable<Shape["object"]> };
/** A container being checked but not built; `start` is set on the outermost one only. */
type SkipFrame = { kind: "array" | "object"; build: false; keys: Set<string> | null; start: number | null };
type Frame = BuildFrame | SkipFrame;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** A container was opened; its first member comes next. */
const OPENED: unique symbol = Symbol("opened");
/** A value inside a skipped container: checked, not kept. */
const IGNORED: unique symbol = Symbol("ignored");

class ParseFailure {
  constructor(
    readonly code: LineParseErrorCode,
    readonly message: string,
  ) {}
}

function malformed(rule: string): ParseFailure {
  return new ParseFailure("malformed_json", `malformed JSON (${rule})`);
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** One parse over `bytes` (valid UTF-8); every loop advances `pos`, so work is linear in the size. */
class LineParser {
  private pos = 0;
  private built = 0;
  /**
   * Keys held by open skipped objects (for the duplicate-key rule). They are freed when their
   * object closes, but while open they cost memory like built values, so they count against
   * `maxValues` too: a flat skipped object of millions of keys is refused, not a heap blow-up.
   */
  private heldKeys = 0;
  loneSurrogate = false;
  private readonly length: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly maxDepth: number,
    private readonly maxValues: number,
  ) {
    this.length = bytes.length;
  }

  /** The byte at `pos`, or -1 past the end. */
  private unitAt(pos: number): number {
    return pos < this.length ? (this.bytes[pos] as number) : -1;
  }

  parse(rootShape: Shape): unknown {
    const stack: Frame[] = [];
    this.skipWhitespace();
    let shape: Shape | null = rootShape; // null: inside a skipped container
    for (;;) {
      let value: unknown = this.parseValueOrOpen(stack, shape);
      if (value === OPENED) {
        shape = this.memberShape(stack);
        continue;
      }
      // Attach the finished value to enclosing containers, closing as many as end here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          this.skipWhitespace();
          if (this.pos !== this.length) throw malformed("unexpected content after the value");
          return value;
        }
        this.skipWhitespace();
        const unit = this.unitAt(this.pos);
        if (top.kind === "array") {
          if (top.build) top.items.push(value);
          if (unit === 0x2c /* , */) {
            this.pos++;
            this.skipWhitespace();
            break;
          }
          if (unit !== 0x5d /* ] */) throw malformed("expected ',' or ']'");
          this.pos++;
          stack.pop();
          value = top.build ? top.items : this.closeSkipped(top);
        } else {
          if (top.build) top.entries.set(top.key, value);
          if (unit === 0x2c /* , */) {
            this.pos++;
            this.skipWhitespace();
            this.parseKey(top);
            break;
          }
          if (unit !== 0x7d /* } */) throw malformed("expected ',' or '}'");
          this.pos++;
          stack.pop();
          value = top.build ? Object.fromEntries(top.entries) : this.closeSkipped(top);
        }
      }
      shape = this.memberShape(stack);
    }
  }

  /** The shape of the next member of the innermost container (null while skipping). */
  private memberShape(stack: Frame[]): Shape | null {
    const top = stack[stack.length - 1] as Frame;
    if (!top.build) return null;
    if (top.kind === "array") return top.itemShape;
    return top.shape.fields?.get(top.key) ?? top.shape.rest;
  }

  private closeSkipped(frame: SkipFrame): unknown {
    if (frame.keys !== null) this.heldKeys -= frame.keys.size;
    if (frame.start === null) return IGNORED;
    return this.skipped(frame.kind, frame.start);
  }

  private skipped(type: JsonType, start: number): SkippedValue {
    this.count();
    return new SkippedValue(type, this.pos - start);
  }

  private count(): void {
    if (++this.built + this.heldKeys > this.maxValues) {
      throw new ParseFailure("too_many_values", `more than ${this.maxValues} JSON values`);
    }
  }

  /** A scalar that was parsed at `start`: built, skipped, or ignored per the shape. */
  private scalar(shape: Shape | null, type: "string" | "number" | "boolean" | "null", value: unknown, start: number): unknown {
    if (shape === null) return IGNORED;
    if (!shape.scalars.has(type)) return this.skipped(type, start);
    this.count();
    return value;
  }

  /** Parses a scalar or an empty container; opens a non-empty container and returns OPENED. */
  private parseValueOrOpen(stack: Frame[], shape: Shape | null): unknown {
    const start = this.pos;
    const unit = this.unitAt(this.pos);
    switch (unit) {
      case QUOTE:
        return this.scalar(shape, "string", this.parseString(), start);
      case 0x7b /* { */:
      case 0x5b /* [ */:
        {
          const kind = unit === 0x7b ? "object" : "array";
          this.checkDepth(stack);
          this.pos++;
          this.skipWhitespace();
          const build = shape !== null && (kind === "object" ? shape.object : shape.array) !== undefined;
          if (this.unitAt(this.pos) === (kind === "object" ? 0x7d /* } */ : 0x5d) /* ] */) {
            this.pos++;
            if (shape === null) return IGNORED;
            if (!build) return this.skipped(kind, start);
            this.count();
            return kind === "object" ? {} : [];
          }
          let frame: Frame;
          if (!build) {
            frame = { kind, build: false, keys: kind === "object" ? new Set() : null, start: shape === null ? null : start };
          } else if (kind === "object") {
            this.count();
            frame = { kind, build: true, entries: new Map(), key: "", shape: (shape as Shape).object as NonNullable<Shape["object"]> };
          } else {
            this.count();
            frame = { kind, build: true, items: [], itemShape: ((shape as Shape).array as NonNullable<Shape["array"]>).items };
          }
          if (frame.kind === "object") this.parseKey(frame);
          stack.push(frame);
          return OPENED;
        }
      case 0x74 /* t */:
        return this.scalar(shape, "boolean", this.parseLiteral("true", true), start);
      case 0x66 /* f */:
        return this.scalar(shape, "boolean", this.parseLiteral("false", false), start);
      case 0x6e /* n */:
        return this.scalar(shape, "null", this.parseLiteral("null", null), start);
      default:
        if (unit === 0x2d /* - */ || isDigit(unit)) return this.scalar(shape, "number", this.parseNumber(), start);
        throw malformed(unit === -1 ? "expected a value, found the end of the line" : "expected a value");
    }
  }

  private checkDepth(stack: Frame[]): void {
    // The container being opened would sit at depth stack.length + 1.
    if (stack.length >= this.maxDepth) {
      throw new ParseFailure("too_deep", `nesting deeper than ${this.maxDepth} levels`);
    }
  }

  /** Parses `"key" :` into the object frame and leaves `pos` at the member's value. */
  private parseKey(frame: Frame): void {
    if (this.unitAt(this.pos) !== QUOTE) throw malformed("expected a string key");
    const key = this.parseString();
    // Compared after unescaping: "a" and "\u0061" are the same key. A skipped object keeps
    // its keys too (only while it is open), so duplicates are refused at every depth.
    const seen = frame.build ? (frame as { entries: Map<string, unknown> }).entries.has(key) : (frame.keys as Set<string>).has(key);
    if (seen) throw new ParseFailure("duplicate_key", "duplicate key (keys must be unique at every depth)");
    if (frame.build) (frame as { key: string }).key = key;
    else {
      (frame.keys as Set<string>).add(key);
      this.heldKeys++;
      if (this.built + this.heldKeys > this.maxValues) {
        throw new ParseFailure("too_many_values", `more than ${this.maxValues} JSON values`);
      }
    }
    this.skipWhitespace();
    if (this.unitAt(this.pos) !== 0x3a /* : */) throw malformed("expected ':'");
    this.pos++;
    this.skipWhitespace();
  }

  private skipWhitespace(): void {
    const bytes = this.bytes;
    const length = this.length;
    let pos = this.pos;
    while (pos < length) {
      const unit = bytes[pos] as number;
      // JSON whitespace only: space, tab, line feed, carriage return.
      if (unit > 0x20 || (unit !== 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d)) break;
      pos++;
    }
    this.pos = pos;
  }

  private parseLiteral<T>(word: string, value: T): T {
    for (let i = 0; i < word.length; i++) {
      if (this.unitAt(this.pos + i) !== word.charCodeAt(i)) throw malformed("invalid literal");
    }
    this.pos += word.length;
    return value;
  }

  private parseNumber(): number {
    const start = this.pos;
    let pos = start;
    const at = (p: number): number => this.unitAt(p);
    if (at(pos) === 0x2d /* - */) pos++;
    const first = at(pos);
    if (first === 0x30 /* 0 */) {
      pos++;
    } else if (isDigit(first)) {
      while (isDigit(at(pos))) pos++;
    } else {
      throw malformed("invalid number");
    }
    if (at(pos) === 0x2e /* . */) {
      pos++;
      if (!isDigit(at(pos))) throw malformed("invalid number");
      while (isDigit(at(pos))) pos++;
    }
    const e = at(pos);
    if (e === 0x65 || e === 0x45 /* e E */) {
      pos++;
      const sign = at(pos);
      if (sign === 0x2b || sign === 0x2d /* + - */) pos++;
      if (!isDigit(at(pos))) throw malformed("invalid number");
      while (isDigit(at(pos))) pos++;
    }
    this.pos = pos;
    const value = Number(this.bytes.toString("latin1", start, pos));
    if (!Number.isFinite(value)) {
      throw new ParseFailure("non_finite_number", "number out of range (non-finite numbers are not accepted)");
    }
    return value;
  }

  /** Parses a string starting at the opening quote; `pos` ends after the closing quote. */
  private parseString(): string {
    const bytes = this.bytes;
    const length = this.length;
    const open = this.pos;
    let pos = open + 1;
    let escaped = false;
    // Only ASCII bytes end or break a string: UTF-8 continuation and lead bytes are >= 0x80.
    for (;;) {
      if (pos >= length) throw malformed("unterminated string");
      const unit = bytes[pos] as number;
      if (unit === QUOTE) break;
      if (unit === BACKSLASH) {
        escaped = true;
        // Skip the escaped character so an escaped quote does not end the string; the escape
        // itself is validated when the string is unescaped below.
        pos += 2;
        continue;
      }
      if (unit < 0x20) throw malformed("control character in string");
      pos++;
    }
    this.pos = pos + 1;
    if (!escaped) return bytes.toString("utf8", open + 1, pos);
    let value: string;
    try {
      value = JSON.parse(bytes.toString("utf8", open, pos + 1)) as string;
    } catch {
      throw malformed("invalid escape");
    }
    // The bytes are strict UTF-8, so only an escape can leave a lone half.
    if (!value.isWellFormed()) this.loneSurrogate = true;
    return value;
  }
}

/**
 * Parses one line or document strictly; never throws for any string input. The string is
 * encoded as UTF-8 first (it should be well-formed: a raw lone surrogate becomes U+FFFD). With a
 * `shape`, values the shape does not accept come back as SkippedValue (see the module comment).
 * The second argument may also be a plain depth, as in earlier versions.
 */
export function parseJsonLine(text: string, options: number | ParseOptions = {}): LineParseResult {
  return parseJsonBytes(Buffer.from(text, "utf8"), typeof options === "number" ? { maxDepth: options } : options);
}

/**
 * Parses UTF-8 bytes strictly: `invalid_utf8` unless they are strict UTF-8 (checked first), then
 * the rules of `parseJsonLine`. A byte order mark is not JSON whitespace, so it is malformed.
 * Never throws for any bytes.
 */
export function parseJsonBytes(input: Uint8Array, options: ParseOptions = {}): LineParseResult {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (!isUtf8(bytes)) return { ok: false, code: "invalid_utf8", message: "invalid UTF-8" };
  const parser = new LineParser(bytes, options.maxDepth ?? MAX_NESTING_DEPTH, options.maxValues ?? Number.POSITIVE_INFINITY);
  try {
    const value = parser.parse(options.shape ?? ANY_SHAPE);
    return { ok: true, value, loneSurrogate: parser.loneSurrogate };
  } catch (error) {
    if (error instanceof ParseFailure) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
