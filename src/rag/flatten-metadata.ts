// Framework metadata → an ingest record's string metadata. RAG loaders attach nested, typed
// metadata, parts of it as attacker-controlled as the text (a PDF's Title), so all of it is
// flattened into strings that ingest screens. Key scheme (docs/rag.md): the path of keys and array
// indices joined by "."; inside a segment "%" is "%25" and "." is "%2E", so `{"a.b": 1}` and
// `{a: {b: 1}}` stay apart. Leaves: strings as they are; finite numbers, bigints, booleans as
// JSON; null as "null"; a Date as ISO text; `undefined` and empty containers leave no key.
// Anything else is refused: dropping it would pass it on unscreened. Keys are in code-point order.
import { UsageError } from "../core/errors.js";
import { sortByCodePoint } from "../core/code-point-order.js";
import { hasPlainPrototype } from "../core/guards.js";

/** Deepest nesting flattened; deeper metadata is refused. */
export const MAX_METADATA_DEPTH = 16;

const segment = (key: string): string => key.replaceAll("%", "%25").replaceAll(".", "%2E");

function leafText(value: unknown): string | undefined | null {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : null;
  if (value === null) return "null";
  if (value === undefined) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return null;
}

/** What one walk over a document's metadata gives: the flattened strings and a copy of the data that was read. */
export interface MetadataSnapshot {
  /** The flattened string metadata (see the key scheme above), in code-point order of keys. */
  readonly flat: Record<string, string>;
  /**
   * A plain deep copy of exactly the values the walk read: plain objects, arrays and leaves (a
   * Date copied). Screening this copy and passing it on, rather than the caller's object, is
   * what makes the screened metadata the metadata passed on: a getter or a proxy that answers
   * a second read differently never reaches the caller's output.
   */
  readonly copy: Record<string, unknown>;
}

/** Defines `key` on `target` as plain data: a key such as "__proto__" stays a plain key. */
function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Flattens `metadata` and copies it in one walk, reading each property once (see
 * MetadataSnapshot). Throws UsageError, naming `what` and the depth (never a key or value, which
 * may be hostile), for metadata that cannot be flattened.
 */
export function snapshotMetadata(metadata: Readonly<Record<string, unknown>>, what = "metadata"): MetadataSnapshot {
  const flat = new Map<string, string>();
  const open = new Set<object>();
  const walk = (value: unknown, path: string, depth: number): unknown => {
    if (typeof value === "object" && value !== null && !(value instanceof Date)) {
      if (depth > MAX_METADATA_DEPTH) throw new UsageError(`${what} is nested deeper than ${MAX_METADATA_DEPTH} levels`);
      if (open.has(value)) throw new UsageError(`${what} refers to itself (a cycle at depth ${depth})`);
      if (!Array.isArray(value) && !hasPlainPrototype(value))
        throw new UsageError(`${what} holds a value that is not JSON data (a class instance at depth ${depth})`);
      open.add(value);
      const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
      const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
      for (const [key, child] of entries) define(copy, key, walk(child, path === "" ? segment(key) : `${path}.${segment(key)}`, depth + 1));
      open.delete(value);
      return copy;
    }
    const text = leafText(value);
    if (text === null) throw new UsageError(`${what} holds a value that cannot be written as text (at depth ${depth})`);
    if (text !== undefined) flat.set(path, text);
    return value instanceof Date ? new Date(value.getTime()) : value;
  };
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata) || !hasPlainPrototype(metadata)) {
    throw new UsageError(`${what} is not a plain object`);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) define(copy, key, walk(value, segment(key), 1));
  const out: Record<string, string> = {};
  for (const key of sortByCodePoint([...flat.keys()])) define(out, key, flat.get(key));
  return { flat: out, copy };
}

/** The flattened string metadata of `metadata` (see the key scheme above); throws as snapshotMetadata does. */
export function flattenMetadata(metadata: Readonly<Record<string, unknown>>, what = "metadata"): Record<string, string> {
  return snapshotMetadata(metadata, what).flat;
}
