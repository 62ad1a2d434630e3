// Canonical JSON: the exact bytes that are hashed and written for the manifest, export and batch
// documents. A document is first checked by a guard (plain JSON values only, finite numbers, no
// lone surrogate in any string or key, bounded depth) and by its zod schema; then it is serialized
// with `fast-json-stable-stringify` and encoded as UTF-8.
//
// Why this equals RFC 8785 (JCS) for such documents: both sort keys by UTF-16 code units (JS's
// default sort); JSON.stringify emits JCS's minimal escapes for well-formed strings; finite numbers
// use the ECMAScript Number-to-String algorithm JCS adopts. (Metadata material and
// `metadata_keys` use code-point order instead; that is a separate, documented choice.)
import stringify from "fast-json-stable-stringify";
import type { z } from "zod";
import { UsageError } from "./errors.js";
import { hasPlainPrototype } from "./guards.js";

/** Deepest nesting a canonical document may have; ours need fewer than 10 levels. */
const MAX_CANONICAL_DEPTH = 64;

export type CanonicalRejection = "non_finite" | "lone_surrogate" | "non_plain" | "too_deep" | "schema";

/** A document could not be made canonical. The message names a path, never a value. */
export class CanonicalJsonError extends UsageError {
  readonly reason: CanonicalRejection;
  constructor(reason: CanonicalRejection, message: string) {
    super(message);
    this.reason = reason;
  }
}

// Paths may include object keys taken from the document; only short plain keys are shown so
// that hostile keys are never echoed.
function pathText(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return "(root)";
  return path.map((part) => (typeof part === "number" ? `[${part}]` : /^[A-Za-z0-9_]{1,40}$/.test(part) ? `.${part}` : ".<key>")).join("");
}

/** A guard failure on its way up: each level adds its key, so no path is built for valid nodes. */
class GuardFailure {
  readonly path: Array<string | number> = [];
  constructor(
    readonly reason: CanonicalRejection,
    readonly describe: (where: string) => string,
  ) {}
}

function checkNode(node: unknown, depth: number): void {
  if (depth > MAX_CANONICAL_DEPTH) throw new GuardFailure("too_deep", () => `document nests deeper than ${MAX_CANONICAL_DEPTH} levels`);
  if (node === null || typeof node === "boolean") return;
  if (typeof node === "number") {
    if (!Number.isFinite(node)) throw new GuardFailure("non_finite", (where) => `non-finite number at ${where}`);
    return;
  }
  if (typeof node === "string") {
    if (!node.isWellFormed()) throw new GuardFailure("lone_surrogate", (where) => `lone surrogate in a string at ${where}`);
    return;
  }
  if (typeof node !== "object") throw new GuardFailure("non_plain", (where) => `value that is not JSON at ${where}`);
  if (Array.isArray(node)) {
    if (Object.getPrototypeOf(node) !== Array.prototype) throw new GuardFailure("non_plain", (where) => `array subclass at ${where}`);
    for (let i = 0; i < node.length; i++) {
      if (!Object.hasOwn(node, i)) throw new GuardFailure("non_plain", (where) => `sparse array at ${where}`);
      checkChild(node[i], depth, i);
    }
    return;
  }
  if (!hasPlainPrototype(node) || Object.getOwnPropertySymbols(node).length > 0) {
    throw new GuardFailure("non_plain", (where) => `object that is not a plain record at ${where}`);
  }
  // Own string keys, hidden ones included: a non-enumerable or accessor property is refused.
  for (const key of Object.getOwnPropertyNames(node)) {
    const descriptor = Object.getOwnPropertyDescriptor(node, key) as PropertyDescriptor;
    if (!key.isWellFormed()) throw new GuardFailure("lone_surrogate", (where) => `lone surrogate in a key at ${where}`);
    if (!("value" in descriptor) || !descriptor.enumerable) {
      const failure = new GuardFailure("non_plain", (where) => `accessor or hidden property at ${where}`);
      failure.path.push(key);
      throw failure;
    }
    checkChild(descriptor.value, depth, key);
  }
}

function checkChild(child: unknown, depth: number, step: string | number): void {
  try {
    checkNode(child, depth + 1);
  } catch (error) {
    if (error instanceof GuardFailure) error.path.unshift(step);
    throw error;
  }
}

/**
 * Throws CanonicalJsonError unless `value` is made only of null, booleans, finite numbers,
 * well-formed strings, dense plain arrays and plain objects with data properties, nested at
 * most MAX_CANONICAL_DEPTH deep. Recursion stops at that depth, so hostile nesting (or a cycle)
 * cannot exhaust the stack; the path in a message is assembled only when something failed.
 * For a value at `at` inside a larger document, depth counts from the document's root and
 * messages name the full path, exactly as checking the whole would.
 */
export function assertCanonicalValue(value: unknown, at: ReadonlyArray<string | number> = []): void {
  try {
    checkNode(value, at.length);
  } catch (error) {
    if (!(error instanceof GuardFailure)) throw error;
    throw new CanonicalJsonError(error.reason, error.describe(pathText([...at, ...error.path])));
  }
}

/**
 * Canonical JSON text of a value that passes the guard, without a schema. Used where a
 * document's hash must be recomputed even though it may not match its schema (verify).
 */
export function canonicalJsonUnchecked(value: unknown): string {
  assertCanonicalValue(value);
  return stringify(value);
}

/**
 * Canonical JSON text of `doc` after it passed the guard and `schema`. The input object
 * itself is serialized (not zod's output copy), so keys such as `__proto__` that a zod record
 * would drop on copying stay exactly as given; schemas must therefore not transform values.
 * For a part of a larger document found at `at` (one manifest record at ["records", 7]), depth
 * and messages are as if the whole were checked: the canonical text of a whole is its parts'
 * texts joined by the serializer's own rules, so parts can be serialized as they become final.
 */
export function canonicalJson<S extends z.ZodType>(schema: S, doc: z.input<S> | unknown, at: ReadonlyArray<string | number> = []): string {
  assertCanonicalValue(doc, at);
  const parsed = schema.safeParse(doc);
  if (!parsed.success) {
    const path = (parsed.error.issues[0]?.path ?? []).filter((p): p is string | number => typeof p !== "symbol");
    throw new CanonicalJsonError("schema", `document does not match its schema at ${pathText([...at, ...path])}`);
  }
  return stringify(doc);
}

/** The text around the item texts of one array member: the whole is prefix + items joined by "," + suffix. */
export interface CanonicalFrame {
  readonly prefix: string;
  readonly suffix: string;
}

/**
 * The frame of `{ ...rest, [key]: [items] }` given `rest` (already checked): the canonical text
 * before the first item of the array and after its last, so a writer can put the items' canonical
 * texts (joined by ",") between them as they become final without holding them. It applies the
 * serializer's two composition rules one level deep: an object is "{" + its members (JSON key
 * text, ":", value text) in default-sorted key order joined by "," + "}", and an array is "[" +
 * its item texts joined by "," + "]". A property test holds this equal to serializing the whole.
 */
export function canonicalObjectFrame(rest: Readonly<Record<string, unknown>>, key: string): CanonicalFrame {
  if (Object.hasOwn(rest, key)) throw new UsageError(`the rest of the document already has "${key}"`);
  // Members in the serializer's (default-sorted) order; one whose value has no JSON text (undefined) is left out.
  const members = (keys: string[]): string[] =>
    keys.sort().flatMap((k) => {
      const value: string | undefined = stringify(rest[k]);
      return value === undefined ? [] : [`${JSON.stringify(k)}:${value}`];
    });
  const before = members(Object.keys(rest).filter((k) => k < key));
  const after = members(Object.keys(rest).filter((k) => k > key));
  return { prefix: `{${[...before, `${JSON.stringify(key)}:[`].join(",")}`, suffix: `${["]", ...after].join(",")}}` };
}
