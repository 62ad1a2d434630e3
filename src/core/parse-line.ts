// The one strict JSON grammar of little-canary: a push parser over UTF-8 bytes. A JSONL line or a
// whole document is the parser fed one final chunk (`parseJsonBytes`); a file is the same parser
// fed chunk by chunk (strict-json-stream.ts adds the byte order mark and UTF-8 checks across
// chunks). So a line, a document and a streamed export cannot differ on a rule.
//
// Contract: for a well-formed RFC 8259 text with no duplicate keys, no nesting deeper than
// `maxDepth` and only finite numbers, `parseJsonBytes` equals `JSON.parse(text)`. Anything else is a
// failure value with a stable code; the parser never throws on any input and never echoes it.
// The bytes are checked as strict UTF-8 first; the structure is ASCII, so only string tokens are
// ever decoded, and a large document is never held twice (as bytes and as decoded text).
//
// Why not `JSON.parse`: it lets the last duplicate key win silently, and it cannot tell which
// strings came from an escaped lone surrogate. It is used only as a native unescaper for a single
// string token that holds a backslash (its string grammar is exactly RFC 8259's, and it keeps
// `\ud800` as a lone code unit, which we then detect).
//
// Why iterative: hostile nesting must end in a refusal, never in a stack overflow. Objects are
// built with `Object.fromEntries` (own data properties), so a `__proto__` key is an ordinary key,
// as with `JSON.parse`.
//
// Why shapes: memory. A caller that knows what it can use (a JSONL record: a string `text`, string
// labels, an object of strings as metadata) passes a `Shape`; a value it does not accept is still
// checked by every rule but never built: it becomes one small `SkippedValue` (its JSON type and
// size in bytes), so `{"text":[{},{},…]}` costs a few bytes. A value budget (`maxValues`) bounds
// what is built, together with the keys a skipped object holds while open (to refuse duplicates).
//
// Why a push parser: a chunk may end inside a token. The parser then keeps only that token's bytes
// for the next chunk (a string or number remembers how far it was scanned, so a long token is
// scanned once); `maxTokenBytes` caps them. A number or literal is parsed only once the byte after
// it has arrived (or the input ended), so a chunk boundary never changes where a token ends.
//
// Beyond RFC 8259: `NaN` and `Infinity` are malformed; numbers become JS numbers (integers above
// 2^53 lose precision, as with `JSON.parse`), and one whose value is not finite (`1e400`) is
// refused as `non_finite_number` rather than silently becoming Infinity.

import { Buffer, isUtf8 } from "node:buffer";

/** Deepest nesting of arrays and objects the strict parser accepts. */
export const MAX_NESTING_DEPTH = 64;

type LineParseErrorCode = "malformed_json" | "duplicate_key" | "too_deep" | "non_finite_number" | "too_many_values" | "invalid_utf8";

export type LineParseResult =
  | { ok: true; value: unknown /** some string (key or value) holds an escaped lone surrogate */; loneSurrogate: boolean }
  | { ok: false; code: LineParseErrorCode; message: string };

/** The JSON type of a value. */
export type JsonType = "string" | "number" | "boolean" | "null" | "object" | "array";

/**
 * A value that was checked but not built because its shape did not accept it. It holds no
 * input text: only the JSON type and the value's size in UTF-8 bytes as written in the input.
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
/** Builds a string only. */
export const STRING_SHAPE: Shape = Object.freeze({ scalars: new Set(["string"] as const) });
/** Builds a string or null: a record's `id` or `source`. */
export const LABEL_SHAPE: Shape = Object.freeze({ scalars: new Set(["string", "null"] as const) });
/** Builds an object of strings: a record's `metadata`. */
export const STRING_MAP_SHAPE: Shape = Object.freeze({ scalars: SKIP_SHAPE.scalars, object: { rest: STRING_SHAPE } });

/** Builds the named fields of an object with their shapes and skips its other values; builds the given scalars (none by default). */
export function fieldsShape(fields: ReadonlyArray<readonly [string, Shape]>, scalars: Shape["scalars"] = SKIP_SHAPE.scalars): Shape {
  return Object.freeze({ scalars, object: { fields: new Map(fields), rest: SKIP_SHAPE } });
}

/** Options of `parseJsonBytes`: the grammar's depth and shape, and the most values built (scalars, containers, skipped values; default unlimited). */
export type ParseOptions = Pick<GrammarOptions, "maxDepth" | "shape"> & { readonly maxValues?: number };

/** Limits of one budget: values built (plus keys held by open skipped objects) and characters read. */
export interface StreamBudget {
  readonly maxValues: number;
  readonly maxChars: number;
}

/** Options of the grammar when it is fed in chunks (see strict-json-stream.ts). */
export interface GrammarOptions {
  /** What to build of the document outside streamed arrays; default ANY_SHAPE. */
  readonly shape?: Shape;
  /**
   * Top-level keys whose value, when it is an array, is streamed element by element, with the
   * shape of one element. A value of another type under such a key is assembled normally.
   */
  readonly stream?: ReadonlyMap<string, Shape>;
  /** Deepest nesting accepted, counted from the document's root; default MAX_NESTING_DEPTH. */
  readonly maxDepth?: number;
  /** Budget of everything outside streamed arrays; default unlimited. */
  readonly rest?: StreamBudget;
  /** Budget of each streamed element, counted afresh for every element; default unlimited. */
  readonly element?: StreamBudget;
  /** Longest string, key or number accepted, in bytes as written; default unlimited. */
  readonly maxTokenBytes?: number;
}

/**
 * An object's last member, a string left as the bytes it was written in: the value holds `""`
 * under `key` in its place. The bytes are the string's strict UTF-8 with no escape, so they are
 * the text itself; a caller that only hashes and measures it never decodes it.
 */
export interface StringLeftAsBytes {
  readonly key: string;
  /** The JSON string as written, quotes included (a view of the element's bytes). */
  readonly json: Buffer;
  /** Its code points. */
  readonly length: number;
}

/** Something the parser finished. Element values are final: the parser keeps no reference. */
export type StrictStreamEvent =
  /** A streamed array starts; `members` are the top-level members completed before it. */
  | { readonly type: "array_start"; readonly key: string; readonly members: Readonly<Record<string, unknown>> }
  | {
      readonly type: "element";
      readonly key: string;
      readonly index: number;
      readonly value: unknown;
      /**
       * The element's bytes, given only by the fast reader (core/canonical-json-file.ts), which
       * proved them exactly `JSON.stringify(value)`. A view of the reader's buffer: valid until the
       * next event is pulled, so a consumer reads it before it asks for more.
       */
      readonly bytes?: Buffer;
      /**
       * Only from the fast reader asked to leave a string as bytes (`leaveString`): `value` holds
       * `""` under `left.key`, and the string is `left.json` (a view of `bytes`).
       */
      readonly left?: StringLeftAsBytes;
    }
  | { readonly type: "array_end"; readonly key: string; readonly count: number };

/** Why the grammar refused: the codes of parseJsonBytes, a stream's character budgets, a chunked document's byte order mark. */
export type StrictStreamProblemCode = LineParseErrorCode | "too_many_chars" | "byte_order_mark";

/** A refusal of the grammar or the streaming reader: a stable code and a fixed message (never any input). */
export class StrictStreamError extends Error {
  constructor(
    readonly code: StrictStreamProblemCode,
    message: string,
    /** For a budget code: whether the budget of one streamed element was exceeded (else the rest's). */
    readonly inElement: boolean = false,
  ) {
    super(message);
    this.name = "StrictStreamError";
  }
}

type BuildFrame =
  | { kind: "array"; build: true; items: unknown[]; itemShape: Shape; streamKey: string | null; count: number }
  | { kind: "object"; build: true; entries: Map<string, unknown>; key: string; shape: NonNullable<Shape["object"]> };
/** A container being checked but not built; `start` (absolute offset) is set on the outermost one only. */
type SkipFrame = { kind: "array" | "object"; build: false; keys: Set<string> | null; start: number | null };
type Frame = BuildFrame | SkipFrame;

/** What the parser expects next (see `run`). */
type Phase = 0 | 1 | 2 | 3 | 4;
/** A value (the root, an array item after ',', a member value after ':'). */
const VALUE = 0;
/** Right after '[' or '{': the container's close, or a value or key. */
const OPENED = 1;
/** A member's key (after ',' in an object). */
const KEY = 2;
/** The ':' after a key. */
const COLON = 3;
/** After a value: ',' or the container's close, or the end of the input at the root. */
const AFTER = 4;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const EMPTY = Buffer.alloc(0);
/** A value inside a skipped container: checked, not kept. */
const IGNORED: unique symbol = Symbol("ignored");
/** Marks a streamed array's key among the root's members until the root closes. */
const STREAMED: unique symbol = Symbol("streamed");
const UNLIMITED: StreamBudget = { maxValues: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY };

function malformed(rule: string): StrictStreamError {
  return new StrictStreamError("malformed_json", `malformed JSON (${rule})`);
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** A byte a number token may hold; the number grammar is checked once the token is complete. */
function isNumberByte(unit: number): boolean {
  return isDigit(unit) || unit === 0x2e || unit === 0x65 || unit === 0x45 || unit === 0x2b || unit === 0x2d;
}

/**
 * The strict JSON push parser. `feed` each chunk of strict UTF-8 bytes (the caller checks UTF-8),
 * the last with `final`; it throws StrictStreamError on the first problem, in document order. Work is
 * linear in the input: every step advances, and a token split across chunks is scanned once.
 */
export class StrictJsonParser {
  /** Bytes being parsed: the current chunk, or `store` holding a token's start plus the chunk. */
  private buf: Buffer = EMPTY;
  private length = 0;
  private pos = 0;
  /** Absolute offset of buf[0] in the input. */
  private base = 0;
  private final = false;
  /** Where an unfinished token's bytes are kept between chunks (grown by doubling). */
  private store: Buffer = EMPTY;
  /** How far the unfinished token at `pos` was scanned (from its first byte), and whether it held an escape. */
  private tokenScanned = 0;
  private tokenEscaped = false;
  private phase: Phase = VALUE;
  private readonly stack: Frame[] = [];
  private done: { value: unknown } | null = null;
  /** Some string (key or value) holds an escaped lone surrogate. */
  loneSurrogate = false;
  /** Keys of the root object whose arrays were streamed (in document order). */
  readonly streamed: string[] = [];
  private events: StrictStreamEvent[] = [];
  private readonly rootShape: Shape;
  private readonly streamKeys: ReadonlyMap<string, Shape> | null;
  private readonly maxDepth: number;
  private readonly restBudget: StreamBudget;
  private readonly elementBudget: StreamBudget;
  private readonly maxTokenBytes: number;
  // The budget in use (the rest's, or the current element's: reset for every element) and what it
  // counted so far; while in a streamed array, `restUsed` keeps the rest's counts.
  private budget: StreamBudget;
  private used = { values: 0, chars: 0 };
  private restUsed = this.used;
  private inElement = false;
  /**
   * Keys held by open skipped objects (for the duplicate-key rule). They are freed when their
   * object closes, but while open they cost memory like built values, so they count against
   * the value budget too: a flat skipped object of millions of keys is refused, not a heap blow-up.
   */
  private heldKeys = 0;

  constructor(options: GrammarOptions = {}) {
    this.rootShape = options.shape ?? ANY_SHAPE;
    this.streamKeys = options.stream !== undefined && options.stream.size > 0 ? options.stream : null;
    this.maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH;
    this.restBudget = options.rest ?? UNLIMITED;
    this.elementBudget = options.element ?? UNLIMITED;
    this.budget = this.restBudget;
    this.maxTokenBytes = options.maxTokenBytes ?? Number.POSITIVE_INFINITY;
  }

  /** The root value, once a final chunk was parsed without a problem. */
  get value(): unknown {
    return this.done?.value;
  }

  /** The events completed since the last call. */
  takeEvents(): StrictStreamEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /** Parses the next chunk (the last one with `final`); throws StrictStreamError on a problem. */
  feed(chunk: Buffer, final: boolean): void {
    // An unfinished token waits at the start of `store`: append the chunk behind it.
    const kept = this.length - this.pos;
    if (kept > 0) {
      const needed = kept + chunk.length;
      if (this.store.length < needed) {
        const grown = Buffer.allocUnsafe(Math.max(needed, this.store.length * 2, 1024));
        this.store.copy(grown, 0, 0, kept);
        this.store = grown;
      }
      chunk.copy(this.store, kept);
      this.buf = this.store;
      this.length = needed;
    } else {
      this.base += this.length;
      this.buf = chunk;
      this.length = chunk.length;
    }
    this.pos = 0;
    this.final = final;
    this.run();
    if (!final && this.length > this.pos && (this.buf !== this.store || this.pos !== 0)) {
      // Keep the unfinished token's bytes at the start of `store` (the chunk is the caller's).
      const kept = this.length - this.pos;
      if (this.store.length < kept) this.store = Buffer.allocUnsafe(Math.max(kept * 2, 1024));
      this.buf.copy(this.store, 0, this.pos, this.length);
      this.base += this.pos;
      this.buf = this.store;
      this.length = kept;
      this.pos = 0;
    }
  }

  /** Parses as far as the bytes go; returns when it needs the next chunk or the root is done. */
  private run(): void {
    for (;;) {
      // Every step starts at the next byte that is not whitespace; without one, it waits for the
      // next chunk (or, after the final one, meets the end of the input).
      this.skipWhitespace();
      if (this.pos >= this.length && !this.final) return;
      // -1 past the end (`store` may hold stale bytes there).
      const unit = this.pos < this.length ? (this.buf[this.pos] as number) : -1;
      switch (this.phase) {
        case VALUE:
          if (unit === -1) throw malformed("expected a value, found the end of the line");
          if (!this.parseValue(unit)) return;
          break;
        case KEY:
          if (unit !== QUOTE) throw malformed("expected a string key");
          if (!this.key()) return;
          break;
        case COLON:
          if (unit !== 0x3a /* : */) throw malformed("expected ':'");
          this.pos++;
          this.phase = VALUE;
          break;
        default: {
          // OPENED or AFTER: a container is open (or, after a value, the root is done).
          const top = this.stack[this.stack.length - 1];
          if (top === undefined) {
            if (unit !== -1) throw malformed("unexpected content after the value");
            return;
          }
          const array = top.kind === "array";
          if (unit === (array ? 0x5d /* ] */ : 0x7d) /* } */) {
            this.pos++;
            this.close();
          } else if (this.phase === OPENED) this.phase = array ? VALUE : KEY;
          else {
            if (unit !== 0x2c /* , */) throw malformed(array ? "expected ',' or ']'" : "expected ',' or '}'");
            this.pos++;
            this.phase = array ? VALUE : KEY;
          }
          break;
        }
      }
    }
  }

  /** Parses the value starting with `unit` at `pos`; false when its token needs the next chunk. */
  private parseValue(unit: number): boolean {
    const start = this.pos;
    switch (unit) {
      case QUOTE: {
        const value = this.parseString();
        if (value === null) return false;
        this.countChars(value.length);
        this.scalar("string", value, start);
        return true;
      }
      case 0x7b /* { */:
      case 0x5b /* [ */:
        this.open(unit === 0x7b ? "object" : "array", start);
        return true;
      case 0x74 /* t */:
        return this.literal("true", true, "boolean", start);
      case 0x66 /* f */:
        return this.literal("false", false, "boolean", start);
      case 0x6e /* n */:
        return this.literal("null", null, "null", start);
      default: {
        if (unit !== 0x2d /* - */ && !isDigit(unit)) throw malformed("expected a value");
        if (!this.numberComplete()) return false;
        this.scalar("number", this.parseNumber(), start);
        return true;
      }
    }
  }

  /** The shape of the next member of the innermost container (null while skipping). */
  private memberShape(): Shape | null {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) return this.rootShape;
    if (!top.build) return null;
    if (top.kind === "array") return top.itemShape;
    return top.shape.fields?.get(top.key) ?? top.shape.rest;
  }

  private countValue(): void {
    this.used.values++;
    this.checkValues();
  }

  /** Values built plus keys held by open skipped objects, against the budget in use. */
  private checkValues(): void {
    if (this.used.values + this.heldKeys > this.budget.maxValues) {
      throw new StrictStreamError("too_many_values", `more than ${this.budget.maxValues} JSON values`, this.inElement);
    }
  }

  /** Characters of a string, key or number, counted against the budget in use. */
  private countChars(n: number): void {
    this.used.chars += n;
    if (this.used.chars > this.budget.maxChars) {
      throw new StrictStreamError("too_many_chars", `more than ${this.budget.maxChars} characters`, this.inElement);
    }
  }

  private tokenTooLong(written: number): void {
    if (written > this.maxTokenBytes) {
      throw new StrictStreamError("too_many_chars", `a string, key or number longer than ${this.maxTokenBytes} bytes`, this.inElement);
    }
    // Every character takes at most six bytes as written (`\u0001`), so a token already written in
    // more than six bytes for each character the budget has left cannot fit it: refused while it is
    // read, with countChars' own words, instead of once it was held whole.
    if (written > 6 * (this.budget.maxChars - this.used.chars)) {
      throw new StrictStreamError("too_many_chars", `more than ${this.budget.maxChars} characters`, this.inElement);
    }
  }

  private skipped(type: JsonType, start: number): SkippedValue {
    this.countValue();
    return new SkippedValue(type, this.base + this.pos - start);
  }

  /** A scalar that was parsed at `start` (relative to `buf`): built, skipped, or ignored per the shape. */
  private scalar(type: "string" | "number" | "boolean" | "null", value: unknown, start: number): void {
    const shape = this.memberShape();
    if (shape === null) return this.deliver(IGNORED);
    if (!shape.scalars.has(type)) return this.deliver(this.skipped(type, this.base + start));
    this.countValue();
    this.deliver(value);
  }

  private literal(word: string, value: boolean | null, type: "boolean" | "null", start: number): boolean {
    if (this.length - this.pos < word.length && !this.final) return false;
    for (let i = 0; i < word.length; i++) {
      if (this.pos + i >= this.length || this.buf[this.pos + i] !== word.charCodeAt(i)) throw malformed("invalid literal");
    }
    this.pos += word.length;
    this.scalar(type, value, start);
    return true;
  }

  /** Opens a container at `start` (its bracket), after the depth check. */
  private open(kind: "object" | "array", start: number): void {
    // The container being opened would sit at depth stack.length + 1.
    if (this.stack.length >= this.maxDepth) throw new StrictStreamError("too_deep", `nesting deeper than ${this.maxDepth} levels`);
    this.pos++;
    this.phase = OPENED;
    const parent = this.stack[this.stack.length - 1];
    // A streamed array: a top-level member of the root object named in `stream`.
    if (this.streamKeys !== null && kind === "array" && this.stack.length === 1 && parent !== undefined && parent.kind === "object" && parent.build) {
      const itemShape = this.streamKeys.get(parent.key);
      if (itemShape !== undefined) {
        this.streamed.push(parent.key);
        this.stack.push({ kind: "array", build: true, items: [], itemShape, streamKey: parent.key, count: 0 });
        const members = Object.fromEntries([...parent.entries].filter(([key]) => key !== parent.key));
        this.events.push({ type: "array_start", key: parent.key, members });
        this.inElement = true;
        this.budget = this.elementBudget;
        this.used = { values: 0, chars: 0 };
        return;
      }
    }
    const shape = this.memberShape();
    const built = shape === null ? undefined : kind === "object" ? shape.object : shape.array;
    if (built === undefined) {
      this.stack.push({ kind, build: false, keys: kind === "object" ? new Set() : null, start: shape === null ? null : this.base + start });
      return;
    }
    this.countValue();
    if ("items" in built) this.stack.push({ kind: "array", build: true, items: [], itemShape: built.items, streamKey: null, count: 0 });
    else this.stack.push({ kind: "object", build: true, entries: new Map(), key: "", shape: built });
  }

  /** Closes the innermost container (its closing bracket was consumed) and delivers it. */
  private close(): void {
    const frame = this.stack.pop() as Frame;
    if (!frame.build) {
      if (frame.keys !== null) this.heldKeys -= frame.keys.size;
      // A skipped container counts once, as one value, when it closes.
      return this.deliver(frame.start === null ? IGNORED : this.skipped(frame.kind, frame.start));
    }
    if (frame.kind === "array") {
      if (frame.streamKey === null) return this.deliver(frame.items);
      this.events.push({ type: "array_end", key: frame.streamKey, count: frame.count });
      this.inElement = false;
      this.budget = this.restBudget;
      this.used = this.restUsed;
      // The key stays in the root's entries as a marker (duplicates are refused) until the root closes.
      return this.deliver(STREAMED);
    }
    const entries = frame.entries;
    if (this.stack.length === 0) for (const key of this.streamed) if (entries.get(key) === STREAMED) entries.delete(key);
    this.deliver(Object.fromEntries(entries));
  }

  private deliver(value: unknown): void {
    this.phase = AFTER;
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) this.done = { value };
    else if (!top.build) return;
    else if (top.kind === "object") top.entries.set(top.key, value);
    else if (top.streamKey === null) top.items.push(value);
    else {
      this.events.push({ type: "element", key: top.streamKey, index: top.count++, value });
      this.used.values = 0;
      this.used.chars = 0;
    }
  }

  /** Parses a member's key and checks it; false when it needs the next chunk. */
  private key(): boolean {
    const key = this.parseString();
    if (key === null) return false;
    this.countChars(key.length);
    const frame = this.stack[this.stack.length - 1] as Frame;
    // Compared after unescaping: "a" and "\u0061" are the same key. A skipped object keeps
    // its keys too (only while it is open), so duplicates are refused at every depth.
    const seen = frame.build ? (frame as { entries: Map<string, unknown> }).entries.has(key) : (frame.keys as Set<string>).has(key);
    if (seen) throw new StrictStreamError("duplicate_key", "duplicate key (keys must be unique at every depth)");
    if (frame.build) (frame as { key: string }).key = key;
    else {
      (frame.keys as Set<string>).add(key);
      this.heldKeys++;
      this.checkValues();
    }
    this.phase = COLON;
    return true;
  }

  private skipWhitespace(): void {
    const bytes = this.buf;
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

  /** Whether the number token at `pos` has all its bytes (the byte after it, or the end, arrived). */
  private numberComplete(): boolean {
    const start = this.pos;
    let pos = start + this.tokenScanned;
    while (pos < this.length && isNumberByte(this.buf[pos] as number)) pos++;
    this.tokenTooLong(pos - start);
    if (pos >= this.length && !this.final) {
      this.tokenScanned = pos - start;
      return false;
    }
    this.tokenScanned = 0;
    return true;
  }

  private parseNumber(): number {
    const start = this.pos;
    let pos = start;
    const at = (p: number): number => (p < this.length ? (this.buf[p] as number) : -1);
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
    this.countChars(pos - start);
    const value = Number(this.buf.toString("latin1", start, pos));
    if (!Number.isFinite(value)) throw new StrictStreamError("non_finite_number", "number out of range (non-finite numbers are not accepted)");
    return value;
  }

  /**
   * Parses a string starting at the opening quote at `pos`; `pos` ends after the closing quote.
   * Null when the closing quote has not arrived yet (the scan resumes there on the next chunk).
   */
  private parseString(): string | null {
    const bytes = this.buf;
    const length = this.length;
    const open = this.pos;
    let pos = open + 1 + this.tokenScanned;
    let escaped = this.tokenEscaped;
    // Only ASCII bytes end or break a string: UTF-8 continuation and lead bytes are >= 0x80.
    for (;;) {
      if (pos >= length) {
        this.tokenTooLong(length - open - 1);
        if (!this.final) {
          this.tokenScanned = pos - open - 1;
          this.tokenEscaped = escaped;
          return null;
        }
        throw malformed("unterminated string");
      }
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
    this.tokenScanned = 0;
    this.tokenEscaped = false;
    this.tokenTooLong(pos - open - 1);
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
 * Parses one line or document strictly: `invalid_utf8` unless the bytes are strict UTF-8 (checked
 * first), then the grammar fed one final chunk; with a `shape`, values it does not accept come back
 * as SkippedValue. A byte order mark is not JSON whitespace, so it is malformed. Never throws.
 */
export function parseJsonBytes(input: Uint8Array, options: ParseOptions = {}): LineParseResult {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (!isUtf8(bytes)) return { ok: false, code: "invalid_utf8", message: "invalid UTF-8" };
  // Built without spreads (this runs once per JSONL line); the parser applies the defaults.
  const rest = options.maxValues === undefined ? UNLIMITED : { maxValues: options.maxValues, maxChars: Number.POSITIVE_INFINITY };
  const parser = new StrictJsonParser({ maxDepth: options.maxDepth, shape: options.shape, rest });
  try {
    parser.feed(bytes, true);
    return { ok: true, value: parser.value, loneSurrogate: parser.loneSurrogate };
  } catch (error) {
    // Without a character budget or token cap, the grammar's codes are exactly LineParseErrorCode.
    if (error instanceof StrictStreamError) return { ok: false, code: error.code as LineParseErrorCode, message: error.message };
    throw error;
  }
}
