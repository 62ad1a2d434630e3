// Strict JSON parser for one JSONL line (already decoded; terminator removed).
//
// Contract: for a well-formed RFC 8259 text with no duplicate keys, no nesting deeper than
// `maxDepth` and only finite numbers, the result equals `JSON.parse(text)`. Anything else is a
// failure value with a stable code; the parser never throws on any input and never echoes it.
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
// Choices beyond RFC 8259 (documented for users):
// - `NaN`, `Infinity` and `-Infinity` are not JSON and are malformed.
// - Numbers become JS numbers (integers above 2^53 lose precision, as with `JSON.parse`); a
//   number whose value is not finite (`1e400`) is refused as `non_finite_number` rather than
//   silently becoming Infinity.

export const MAX_NESTING_DEPTH = 64;

export type LineParseErrorCode = "malformed_json" | "duplicate_key" | "too_deep" | "non_finite_number";

export type LineParseResult =
  | { ok: true; value: unknown; /** some string (key or value) holds an escaped lone surrogate */ loneSurrogate: boolean }
  | { ok: false; code: LineParseErrorCode; message: string };

type Frame =
  | { kind: "array"; items: unknown[] }
  | { kind: "object"; entries: Map<string, unknown>; key: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** A quote, a backslash or a control character: the only characters a string scan stops at. */
const STRING_STOP = /["\\\u0000-\u001f]/g;

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

/** One parse over `text`; every loop advances `pos`, so work is linear in the line length. */
class LineParser {
  private pos = 0;
  loneSurrogate = false;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parse(): unknown {
    const stack: Frame[] = [];
    this.skipWhitespace();
    for (;;) {
      let value = this.parseValueOrOpen(stack);
      // `undefined` means a container was opened and its first member must be parsed next.
      if (value === undefined) continue;
      // Attach the finished value to enclosing containers, closing as many as end here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          this.skipWhitespace();
          if (this.pos !== this.text.length) throw malformed("unexpected content after the value");
          return value;
        }
        this.skipWhitespace();
        const unit = this.text.charCodeAt(this.pos);
        if (top.kind === "array") {
          top.items.push(value);
          if (unit === 0x2c /* , */) {
            this.pos++;
            this.skipWhitespace();
            break;
          }
          if (unit !== 0x5d /* ] */) throw malformed("expected ',' or ']'");
          this.pos++;
          stack.pop();
          value = top.items;
        } else {
          top.entries.set(top.key, value);
          if (unit === 0x2c /* , */) {
            this.pos++;
            this.skipWhitespace();
            top.key = this.parseKey(top.entries);
            break;
          }
          if (unit !== 0x7d /* } */) throw malformed("expected ',' or '}'");
          this.pos++;
          stack.pop();
          value = Object.fromEntries(top.entries);
        }
      }
    }
  }

  /** Parses a scalar or an empty container; opens a non-empty container and returns undefined. */
  private parseValueOrOpen(stack: Frame[]): unknown {
    const unit = this.text.charCodeAt(this.pos);
    switch (unit) {
      case QUOTE:
        return this.parseString();
      case 0x7b /* { */: {
        this.checkDepth(stack);
        this.pos++;
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
          this.pos++;
          return {};
        }
        const entries = new Map<string, unknown>();
        const key = this.parseKey(entries);
        stack.push({ kind: "object", entries, key });
        return undefined;
      }
      case 0x5b /* [ */: {
        this.checkDepth(stack);
        this.pos++;
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
          this.pos++;
          return [];
        }
        stack.push({ kind: "array", items: [] });
        return undefined;
      }
      case 0x74 /* t */:
        return this.parseLiteral("true", true);
      case 0x66 /* f */:
        return this.parseLiteral("false", false);
      case 0x6e /* n */:
        return this.parseLiteral("null", null);
      default:
        if (unit === 0x2d /* - */ || isDigit(unit)) return this.parseNumber();
        throw malformed(Number.isNaN(unit) ? "expected a value, found the end of the line" : "expected a value");
    }
  }

  private checkDepth(stack: Frame[]): void {
    // The container being opened would sit at depth stack.length + 1.
    if (stack.length >= this.maxDepth) {
      throw new ParseFailure("too_deep", `nesting deeper than ${this.maxDepth} levels`);
    }
  }

  /** Parses `"key" :` and leaves `pos` at the member's value. */
  private parseKey(entries: Map<string, unknown>): string {
    if (this.text.charCodeAt(this.pos) !== QUOTE) throw malformed("expected a string key");
    const key = this.parseString();
    // Compared after unescaping: "a" and "\u0061" are the same key.
    if (entries.has(key)) {
      throw new ParseFailure("duplicate_key", "duplicate key (keys must be unique at every depth)");
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) throw malformed("expected ':'");
    this.pos++;
    this.skipWhitespace();
    return key;
  }

  private skipWhitespace(): void {
    const text = this.text;
    const length = text.length;
    let pos = this.pos;
    while (pos < length) {
      const unit = text.charCodeAt(pos);
      // JSON whitespace only: space, tab, line feed, carriage return.
      if (unit > 0x20 || (unit !== 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d)) break;
      pos++;
    }
    this.pos = pos;
  }

  private parseLiteral<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) throw malformed("invalid literal");
    this.pos += word.length;
    return value;
  }

  private parseNumber(): number {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 0x2d /* - */) pos++;
    const first = text.charCodeAt(pos);
    if (first === 0x30 /* 0 */) {
      pos++;
    } else if (isDigit(first)) {
      while (isDigit(text.charCodeAt(pos))) pos++;
    } else {
      throw malformed("invalid number");
    }
    if (text.charCodeAt(pos) === 0x2e /* . */) {
      pos++;
      if (!isDigit(text.charCodeAt(pos))) throw malformed("invalid number");
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45 /* e E */) {
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d /* + - */) pos++;
      if (!isDigit(text.charCodeAt(pos))) throw malformed("invalid number");
      while (isDigit(text.charCodeAt(pos))) pos++;
    }
    this.pos = pos;
    const value = Number(text.slice(start, pos));
    if (!Number.isFinite(value)) {
      throw new ParseFailure("non_finite_number", "number out of range (non-finite numbers are not accepted)");
    }
    return value;
  }

  /** Parses a string starting at the opening quote; `pos` ends after the closing quote. */
  private parseString(): string {
    const text = this.text;
    const open = this.pos;
    let pos = open + 1;
    let escaped = false;
    // Jump from one interesting character to the next natively instead of char by char.
    for (;;) {
      STRING_STOP.lastIndex = pos;
      const match = STRING_STOP.exec(text);
      if (match === null) throw malformed("unterminated string");
      const at = match.index;
      const unit = text.charCodeAt(at);
      if (unit === QUOTE) {
        pos = at;
        break;
      }
      if (unit === BACKSLASH) {
        escaped = true;
        // Skip the escaped character so an escaped quote does not end the string; the escape
        // itself is validated when the string is unescaped below.
        pos = at + 2;
        continue;
      }
      throw malformed("control character in string");
    }
    this.pos = pos + 1;
    if (!escaped) return text.slice(open + 1, pos);
    let value: string;
    try {
      value = JSON.parse(text.slice(open, pos + 1)) as string;
    } catch {
      throw malformed("invalid escape");
    }
    // Raw input is well-formed (strict UTF-8), so only an escape can leave a lone half.
    if (!value.isWellFormed()) this.loneSurrogate = true;
    return value;
  }
}

/** Parses one line strictly; never throws for any string input. */
export function parseJsonLine(text: string, maxDepth: number = MAX_NESTING_DEPTH): LineParseResult {
  const parser = new LineParser(text, maxDepth);
  try {
    const value = parser.parse();
    return { ok: true, value, loneSurrogate: parser.loneSurrogate };
  } catch (error) {
    if (error instanceof ParseFailure) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
