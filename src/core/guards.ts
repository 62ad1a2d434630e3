// Small type guards shared by every layer. One definition, so "is this a JSON object?" means
// the same thing in the reader, the canary backends, the server and the integrations.
import { UsageError } from "./errors.js";

/**
 * True for a non-null object that is not an array: what a parsed JSON object looks like.
 * It does not look at the prototype (a parsed value never has an unusual one); code that
 * must refuse class instances checks that separately.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for a `{}`-made or null-prototype object; false for class instances (a Map, a Date, a Buffer). */
export function hasPlainPrototype(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The first own key of `value` that `known` does not list, with the known key it was probably
 * meant to be (see resembles), or null when every key is known. A JavaScript caller's typo
 * (`modee`) is then an error, never an option silently ignored.
 */
export function unknownKey(value: object, known: readonly string[]): { readonly key: string; readonly suggestion: string | null } | null {
  const allowed = new Set(known);
  const key = Object.keys(value).find((k) => !allowed.has(k)) ?? inheritedNearMiss(value, allowed, known);
  if (key === undefined) return null;
  return { key, suggestion: known.find((k) => resembles(k, key)) ?? null };
}

/**
 * A name on the value's prototypes (below Object.prototype: a class's getter or method) that is
 * not an option but resembles one: a misspelt option behind a getter (`get expectManifestSHA256()`)
 * is as silent as an own one, while other methods and accessors of an options class are its own business.
 */
function inheritedNearMiss(value: object, allowed: ReadonlySet<string>, known: readonly string[]): string | undefined {
  for (const at of ownPrototypeChain(value).slice(1)) {
    const name = Object.getOwnPropertyNames(at).find((k) => k !== "constructor" && !allowed.has(k) && known.some((option) => resembles(option, k)));
    if (name !== undefined) return name;
  }
  return undefined;
}

/** `value` and its prototypes, nearest first, up to but not including Object.prototype: what a call's own options object is made of, as against what every object inherits. */
export function ownPrototypeChain(value: object): object[] {
  const chain: object[] = [];
  for (let at: object | null = value; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at)) chain.push(at);
  return chain;
}

/** Names alike but for case, one edit, or an ending of up to two letters (`onBlocked`, `onBlock`). */
function resembles(known: string, key: string): boolean {
  const [a, b] = [known.toLowerCase(), key.toLowerCase()];
  if (a === b || withinOneEdit(a, b)) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.length - short.length <= 2 && long.startsWith(short);
}

/** Most options a refusal lists when it has no near miss to suggest. */
const MAX_LISTED_OPTIONS = 8;

/**
 * A library call's `concurrency` option: 1 when it is not given, else a whole number of checks
 * in flight, 1 or more. Anything else is a UsageError naming `where`, not a RangeError deep inside.
 */
export function concurrencyOption(where: string, value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${where} option concurrency must be a whole number of 1 or more`);
  }
  return value;
}

/**
 * A library call's `cache` option: no cache when it is not given or falsy (a JavaScript caller's
 * null), else it must have `lookup` and `store` methods (the item cache the call consults), or a
 * UsageError naming `where` says so before any check, not a TypeError at the first item.
 */
export function itemCacheOption<C extends object>(where: string, value: C | null | undefined | false): C | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const cache = value as { lookup?: unknown; store?: unknown };
  if (typeof value !== "object" || typeof cache.lookup !== "function" || typeof cache.store !== "function") {
    throw new UsageError(`${where} option cache must be an object with lookup and store methods`);
  }
  return value;
}

/** Whether `value` can screen a text the way a pipeline does: an object with a `check` method. */
export function hasCheckMethod(value: unknown): value is { check(text: string): unknown } {
  return typeof value === "object" && value !== null && typeof (value as { check?: unknown }).check === "function";
}

/**
 * Throws UsageError for the first key of a library caller's options object that `known` does
 * not list (`unknown <where> option "modee"; did you mean 'mode'?`, or with no near miss and at
 * most MAX_LISTED_OPTIONS known, the list of them; plus `note`), and for options that are not an
 * object. One rule for every entry point that checks its options.
 */
export function refuseUnknownOptions(where: string, options: unknown, known: readonly string[], note = ""): void {
  if (!isPlainObject(options)) throw new UsageError(`${where} options must be an object`);
  const unknown = unknownKey(options, known);
  if (unknown === null) return;
  // Without a near miss, a short list of what is known says it at once (`text` for `input`).
  const listed = known.length <= MAX_LISTED_OPTIONS ? `; ${where} takes ${known.join(", ")}` : "";
  const hint = unknown.suggestion === null ? listed : `; did you mean '${unknown.suggestion}'?`;
  throw new UsageError(`unknown ${where} option ${JSON.stringify(unknown.key.slice(0, 60))}${hint}${note}`);
}

/**
 * True when `a` becomes `b` by one inserted, deleted or replaced UTF-16 unit, or by two
 * neighbours swapped (`exprot`, the commonest slip of the fingers; names are ASCII).
 */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const rest = (x: string, skip: number) => x.slice(i + skip);
  const swapped = a.length === b.length && a[i] === b[i + 1] && a[i + 1] === b[i] && rest(a, 2) === rest(b, 2);
  return swapped || rest(a, 1) === rest(b, 1) || rest(a, 1) === rest(b, 0) || rest(a, 0) === rest(b, 1);
}

/** `raw` parsed as a WHATWG URL, or null when it is not one (Node 20 has no `URL.parse`). */
export function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}
