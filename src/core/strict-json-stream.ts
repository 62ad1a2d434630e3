// Strict streaming JSON reader: the rules of the strict document reader (strict-document.ts,
// parse-line.ts), applied to a document fed in chunks of bytes, so that a document far larger
// than memory can be walked. The caller names top-level keys whose array value is *streamed*:
// each element of such an array is assembled on its own, within its own budget, handed over as
// an event, and then dropped; everything else (the small rest of the document) is assembled
// normally and returned at the end.
//
// The tokens come from `stream-json`'s parser. It is wrapped, because on its own it is not
// strict (docs/development.md, "Dependencies", says the same):
// - UTF-8: its own decoding step replaces invalid bytes with U+FFFD. We decode the bytes
//   ourselves with a fatal streaming TextDecoder (a sequence split across two chunks is
//   joined, an invalid or truncated one is refused) and give the tokenizer text only.
// - Whitespace: it accepts anything JavaScript's `\s` matches between tokens (U+00A0, U+2028,
//   a byte order mark, vertical tab, form feed…). A byte scan that tracks whether it is inside
//   a string refuses every byte outside strings that is neither ASCII nor JSON structure, and
//   vertical tab and form feed. A byte order mark is refused by its own code first.
// - Duplicate keys (after unescaping; its key tokens are unescaped), nesting depth, finite
//   numbers and the value budgets are enforced here, on the tokens.
// - Lone surrogates: an escaped lone half (`"\ud800"`) stays a lone code unit, as with the
//   strict reader, and is reported through `loneSurrogate`; raw bytes cannot make one.
//
// Which problem is reported matches the strict reader: a byte order mark first, then invalid
// UTF-8 anywhere in the document (after a JSON problem the remaining bytes are still checked
// for UTF-8), then the first JSON problem in document order. One exception: the tokenizer
// throws on a syntax error without handing out the tokens it read before it in the same
// chunk, so when an earlier problem of another kind (a duplicate key, a non-finite number…)
// sits in that same chunk, the syntax problem is named instead. The document is refused
// either way.
//
// Memory: the tokenizer holds at most one chunk of text plus the string or number it is inside.
// That one token is bounded while it is read: the byte scan refuses a string, key or number whose
// written form exceeds `maxTokenBytes` (a character takes at least one byte, so the tokenizer
// never accumulates more characters than that). Once a token is complete, its characters count
// against the budget of where it sits. (The tokenizer can also hand out strings in pieces, which
// would let the budget count them as they arrive, but that triples the number of tokens and
// halves its speed; the scan bounds the same memory for free.)
import streamJsonParserModule from "stream-json/parser.js";
import { ANY_SHAPE, MAX_NESTING_DEPTH, SkippedValue, type JsonType, type Shape } from "./parse-line.js";
import { startsWithByteOrderMark, type StrictDocumentProblemCode } from "./strict-document.js";

interface Token {
  readonly name: string;
  readonly value?: unknown;
}
type Tokenizer = (input: string | symbol) => unknown;

// The parser factory returns a two-step pipe (its UTF-8 fixer, then the tokenizer); we take the
// tokenizer alone from its function list and feed it text we decoded strictly ourselves. (A
// static import, so that bundlers see the dependency.)
const streamJsonParser = streamJsonParserModule as unknown as (options: object) => { fList?: unknown[] };
const NONE = Symbol.for("object-stream.none");
const MANY = Symbol.for("object-stream.many");

function makeTokenizer(): Tokenizer {
  const pipe = streamJsonParser({ packValues: true, streamValues: false, jsonStreaming: false });
  const tokenizer = pipe.fList?.[1];
  if (typeof tokenizer !== "function") throw new Error("stream-json parser has an unexpected shape");
  return tokenizer as Tokenizer;
}

function tokensOf(result: unknown): readonly Token[] {
  if (result === NONE || result === undefined) return [];
  if (typeof result === "object" && result !== null && (result as Record<symbol, unknown>)[MANY] === 1) {
    return (result as { values: Token[] }).values;
  }
  return [result as Token];
}

/** Why a streamed document could not be read: the strict reader's codes plus a character budget. */
export type StrictStreamProblemCode = StrictDocumentProblemCode | "too_many_chars";

/** A refusal of the streaming reader: a stable code and a fixed message (never any input). */
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

/** Limits of one budget: values built (plus keys held by open skipped objects) and characters read. */
export interface StreamBudget {
  readonly maxValues: number;
  readonly maxChars: number;
}

/** Options of StrictJsonStream. */
export interface StrictJsonStreamOptions {
  /** What to build of the document outside streamed arrays (as in parse-line.ts); default ANY_SHAPE. */
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

/** Something the reader finished. Element values are final: the reader keeps no reference. */
export type StrictStreamEvent =
  /** A streamed array starts; `members` are the top-level members completed before it. */
  | { readonly type: "array_start"; readonly key: string; readonly members: Readonly<Record<string, unknown>> }
  | { readonly type: "element"; readonly key: string; readonly index: number; readonly value: unknown }
  | { readonly type: "array_end"; readonly key: string; readonly count: number };

/** The document without its streamed arrays. */
export interface StrictStreamResult {
  /** The root value; when arrays were streamed it is the root object without those keys. */
  readonly value: unknown;
  /** Keys whose arrays were streamed (in document order). */
  readonly streamed: readonly string[];
  /** Some string (key or value) holds an escaped lone surrogate. */
  readonly loneSurrogate: boolean;
  /** Bytes read. */
  readonly bytes: number;
}

type Frame =
  | { kind: "object"; build: true; entries: Map<string, unknown>; key: string; shape: NonNullable<Shape["object"]>; root: boolean }
  | { kind: "array"; build: true; items: unknown[]; itemShape: Shape; streamKey: string | null; count: number }
  | { kind: "object" | "array"; build: false; keys: Set<string> | null; report: boolean };

const UNLIMITED: StreamBudget = { maxValues: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY };
/** A value inside a skipped container: checked, not kept. */
const IGNORED: unique symbol = Symbol("ignored");

const malformed = (rule: string) => new StrictStreamError("malformed_json", `malformed JSON (${rule})`);

/**
 * A push reader: `write` each chunk of bytes, then `end`. It never throws from `write`: the first
 * problem is kept (see `failed`) and the rest of the bytes are only checked for UTF-8, so the
 * problem `end` throws is the one the strict whole-document reader would report.
 */
export class StrictJsonStream {
  private readonly tokenizer = makeTokenizer();
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  private readonly shape: Shape;
  private readonly streamKeys: ReadonlyMap<string, Shape>;
  private readonly maxDepth: number;
  private readonly restBudget: StreamBudget;
  private readonly elementBudget: StreamBudget;
  private readonly maxTokenBytes: number;
  /** Bytes of the token the scan is inside (a string's, or a number's or literal's). */
  private tokenBytes = 0;
  private tokenTooLong = false;
  private failure: StrictStreamError | null = null;
  private utf8Failed = false;
  private head: Uint8Array | null = new Uint8Array(0);
  private bytesRead = 0;
  // Byte scan state: outside strings, inside one, or just after a backslash inside one.
  private scan: 0 | 1 | 2 = 0;
  private readonly stack: Frame[] = [];
  private result: { value: unknown } | null = null;
  private readonly streamed: string[] = [];
  private loneSurrogate = false;
  private events: StrictStreamEvent[] = [];
  // Budget in use: the rest's, or the current element's (reset for every element).
  private restValues = 0;
  private restChars = 0;
  private elementValues = 0;
  private elementChars = 0;
  private inElement = false;
  /** Keys held by open skipped objects, per budget. */
  private heldKeys = 0;

  constructor(options: StrictJsonStreamOptions = {}) {
    this.shape = options.shape ?? ANY_SHAPE;
    this.streamKeys = options.stream ?? new Map();
    this.maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH;
    this.restBudget = options.rest ?? UNLIMITED;
    this.elementBudget = options.element ?? UNLIMITED;
    this.maxTokenBytes = options.maxTokenBytes ?? Number.POSITIVE_INFINITY;
  }

  /** The first problem found so far, if any (the document will be refused). */
  get failed(): StrictStreamError | null {
    return this.failure;
  }

  /** Feeds the next chunk; returns what it completed. Never throws. */
  write(chunk: Uint8Array): StrictStreamEvent[] {
    this.bytesRead += chunk.byteLength;
    if (this.head !== null) {
      // Hold the first three bytes until they can be compared with a byte order mark.
      const joined = new Uint8Array(this.head.byteLength + chunk.byteLength);
      joined.set(this.head);
      joined.set(chunk, this.head.byteLength);
      if (joined.byteLength < 3) {
        this.head = joined;
        return [];
      }
      this.head = null;
      if (startsWithByteOrderMark(joined)) {
        this.failure = new StrictStreamError("byte_order_mark", "starts with a byte order mark");
        return [];
      }
      return this.process(joined);
    }
    return this.process(chunk);
  }

  /** Ends the document: its rest, or throws StrictStreamError with the reader's problem. */
  end(): StrictStreamResult {
    if (this.head !== null) {
      const head = this.head;
      this.head = null;
      this.process(head);
    }
    if (this.failure?.code !== "byte_order_mark") {
      try {
        this.decoder.decode();
      } catch {
        this.utf8Failed = true;
      }
      if (this.utf8Failed) throw new StrictStreamError("invalid_utf8", "invalid UTF-8");
    }
    if (this.failure === null) this.guard(() => this.consume(this.tokenizer(NONE)));
    if (this.failure !== null) throw this.failure;
    if (this.result === null) throw malformed("expected a value, found the end of the document");
    return { value: this.result.value, streamed: this.streamed, loneSurrogate: this.loneSurrogate, bytes: this.bytesRead };
  }

  private process(bytes: Uint8Array): StrictStreamEvent[] {
    if (this.failure?.code === "byte_order_mark") return [];
    if (this.failure !== null) {
      this.checkUtf8(bytes);
      return [];
    }
    const bad = this.scanBytes(bytes);
    const good = bad === -1 ? bytes : bytes.subarray(0, bad);
    let text: string;
    try {
      text = this.decoder.decode(good, { stream: true });
    } catch {
      this.utf8Failed = true;
      this.failure = new StrictStreamError("invalid_utf8", "invalid UTF-8");
      return [];
    }
    this.guard(() => this.consume(this.tokenizer(text)));
    if (bad !== -1) {
      if (this.failure === null) {
        this.failure = this.tokenTooLong
          ? new StrictStreamError("too_many_chars", `a string, key or number longer than ${this.maxTokenBytes} bytes`, this.inElement)
          : malformed("unexpected character outside a string");
      }
      this.checkUtf8(bytes.subarray(bad));
    }
    const events = this.events;
    this.events = [];
    return events;
  }

  private checkUtf8(bytes: Uint8Array): void {
    if (this.utf8Failed) return;
    try {
      this.decoder.decode(bytes, { stream: true });
    } catch {
      this.utf8Failed = true;
    }
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (error instanceof StrictStreamError) this.failure = error;
      else this.failure = malformed("invalid syntax");
      this.events = [];
    }
  }

  /**
   * Index of the first byte that is not allowed outside a string (non-ASCII, vertical tab,
   * form feed) or that makes one token longer than `maxTokenBytes`, or -1. Inside strings every
   * byte is left to the tokenizer and the decoder; `tokenTooLong` says which rule stopped it.
   */
  private scanBytes(bytes: Uint8Array): number {
    let state = this.scan;
    let run = this.tokenBytes;
    const max = this.maxTokenBytes;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i] as number;
      if (state === 0) {
        if (b === 0x22) {
          state = 1;
          run = 0;
        } else if (b >= 0x80 || b === 0x0b || b === 0x0c) {
          this.scan = state;
          this.tokenBytes = run;
          return i;
        } else if (b <= 0x20 || b === 0x2c || b === 0x3a || b === 0x5b || b === 0x5d || b === 0x7b || b === 0x7d) {
          run = 0;
        } else if (++run > max) {
          this.tokenTooLong = true;
          return i;
        }
      } else {
        if (state === 2) state = 1;
        else if (b === 0x5c) state = 2;
        else if (b === 0x22) {
          state = 0;
          run = 0;
          continue;
        }
        if (++run > max) {
          this.tokenTooLong = true;
          return i;
        }
      }
    }
    this.scan = state;
    this.tokenBytes = run;
    return -1;
  }

  private countValue(): void {
    if (this.inElement) {
      if (++this.elementValues + this.heldKeys > this.elementBudget.maxValues) throw this.tooMany(this.elementBudget);
    } else if (++this.restValues + this.heldKeys > this.restBudget.maxValues) throw this.tooMany(this.restBudget);
  }

  private countHeldKey(): void {
    this.heldKeys++;
    const budget = this.inElement ? this.elementBudget : this.restBudget;
    const values = this.inElement ? this.elementValues : this.restValues;
    if (values + this.heldKeys > budget.maxValues) throw this.tooMany(budget);
  }

  private tooMany(budget: StreamBudget): StrictStreamError {
    return new StrictStreamError("too_many_values", `more than ${budget.maxValues} JSON values`, this.inElement);
  }

  private countChars(n: number): void {
    if (this.inElement) {
      this.elementChars += n;
      if (this.elementChars > this.elementBudget.maxChars) {
        throw new StrictStreamError("too_many_chars", `more than ${this.elementBudget.maxChars} characters`, true);
      }
    } else {
      this.restChars += n;
      if (this.restChars > this.restBudget.maxChars) throw new StrictStreamError("too_many_chars", `more than ${this.restBudget.maxChars} characters`);
    }
  }

  /** The shape of the next member of the innermost container (null while skipping). */
  private memberShape(): Shape | null {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) return this.result === null ? this.shape : null;
    if (!top.build) return null;
    if (top.kind === "array") return top.itemShape;
    return top.shape.fields?.get(top.key) ?? top.shape.rest;
  }

  private skipped(type: JsonType): SkippedValue {
    this.countValue();
    // The byte size is not known here (tokens carry no offsets).
    return new SkippedValue(type, Number.NaN);
  }

  private scalar(type: "string" | "number" | "boolean" | "null", value: unknown): void {
    const shape = this.memberShape();
    if (shape === null) return this.deliver(IGNORED);
    if (!shape.scalars.has(type)) return this.deliver(this.skipped(type));
    this.countValue();
    this.deliver(value);
  }

  private open(kind: "object" | "array"): void {
    if (this.stack.length >= this.maxDepth) throw new StrictStreamError("too_deep", `nesting deeper than ${this.maxDepth} levels`);
    const parent = this.stack[this.stack.length - 1];
    // A streamed array: a top-level member of the root object named in `stream`.
    if (kind === "array" && parent !== undefined && parent.kind === "object" && parent.build && parent.root && this.stack.length === 1) {
      const itemShape = this.streamKeys.get(parent.key);
      if (itemShape !== undefined) {
        this.streamed.push(parent.key);
        this.stack.push({ kind: "array", build: true, items: [], itemShape, streamKey: parent.key, count: 0 });
        const members = Object.fromEntries([...parent.entries].filter(([key]) => key !== parent.key));
        this.events.push({ type: "array_start", key: parent.key, members });
        this.inElement = true;
        this.elementValues = 0;
        this.elementChars = 0;
        return;
      }
    }
    const shape = this.memberShape();
    const build = shape !== null && (kind === "object" ? shape.object : shape.array) !== undefined;
    if (!build) {
      this.stack.push({ kind, build: false, keys: kind === "object" ? new Set() : null, report: shape !== null });
      return;
    }
    this.countValue();
    if (kind === "object") {
      const objectShape = (shape as Shape).object as NonNullable<Shape["object"]>;
      this.stack.push({ kind, build: true, entries: new Map(), key: "", shape: objectShape, root: parent === undefined });
    } else {
      this.stack.push({ kind, build: true, items: [], itemShape: ((shape as Shape).array as NonNullable<Shape["array"]>).items, streamKey: null, count: 0 });
    }
  }

  private close(): void {
    const frame = this.stack.pop() as Frame;
    if (!frame.build) {
      if (frame.keys !== null) this.heldKeys -= frame.keys.size;
      if (!frame.report) return this.deliver(IGNORED);
      // A skipped container counts once, as one value, when it closes (as in parse-line.ts).
      return this.deliver(this.skipped(frame.kind));
    }
    if (frame.kind === "array") {
      if (frame.streamKey !== null) {
        this.events.push({ type: "array_end", key: frame.streamKey, count: frame.count });
        this.inElement = false;
        // The key stays in the parent's entries as a marker until the root closes.
        return this.deliver(STREAMED);
      }
      return this.deliver(frame.items);
    }
    const entries = frame.entries;
    if (frame.root) for (const key of this.streamed) if (entries.get(key) === STREAMED) entries.delete(key);
    this.deliver(Object.fromEntries(entries));
  }

  private key(key: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined || top.kind !== "object") throw malformed("unexpected key");
    if (!key.isWellFormed()) this.loneSurrogate = true;
    const seen = top.build ? top.entries.has(key) : (top.keys as Set<string>).has(key);
    if (seen) throw new StrictStreamError("duplicate_key", "duplicate key (keys must be unique at every depth)");
    if (top.build) {
      top.key = key;
      // Reserve the key so a duplicate is seen even while its value is still being read.
      top.entries.set(key, undefined);
    } else {
      (top.keys as Set<string>).add(key);
      this.countHeldKey();
    }
  }

  private deliver(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.result = { value };
      return;
    }
    if (!top.build) return;
    if (top.kind === "object") {
      top.entries.set(top.key, value);
      return;
    }
    if (top.streamKey !== null) {
      this.events.push({ type: "element", key: top.streamKey, index: top.count++, value });
      this.elementValues = 0;
      this.elementChars = 0;
      return;
    }
    top.items.push(value);
  }

  private consume(result: unknown): void {
    for (const token of tokensOf(result)) {
      switch (token.name) {
        case "startObject":
          this.open("object");
          break;
        case "startArray":
          this.open("array");
          break;
        case "endObject":
        case "endArray":
          this.close();
          break;
        case "keyValue":
          this.countChars((token.value as string).length);
          this.key(token.value as string);
          break;
        case "stringValue": {
          const value = token.value as string;
          this.countChars(value.length);
          if (!value.isWellFormed()) this.loneSurrogate = true;
          this.scalar("string", value);
          break;
        }
        case "numberValue": {
          this.countChars((token.value as string).length);
          const value = Number(token.value as string);
          if (!Number.isFinite(value)) {
            throw new StrictStreamError("non_finite_number", "number out of range (non-finite numbers are not accepted)");
          }
          this.scalar("number", value);
          break;
        }
        case "trueValue":
          this.scalar("boolean", true);
          break;
        case "falseValue":
          this.scalar("boolean", false);
          break;
        case "nullValue":
          this.scalar("null", null);
          break;
        default:
          // No other token is asked for (values are packed, not streamed).
          break;
      }
    }
  }
}

/** Marks a streamed array's key among the root's members until the root closes. */
const STREAMED: unique symbol = Symbol("streamed");
