// The schema of a metadata map (string keys → string values) as exported and hashed.
// zod's `z.record` copies into a fresh `{}`, where assigning `__proto__` sets the prototype
// instead of a key, so it would neither check nor keep an own `__proto__` entry (the strict
// reader treats it as an ordinary key). The map is therefore checked on its own keys first, and the
// record schema after it only gives the JSON Schema its shape.
import { z } from "zod";
import { hasPlainPrototype, isPlainObject } from "../core/guards.js";

/** True when `value` is a plain object whose own keys all map to strings. */
export function isStringMap(value: unknown): value is Record<string, string> {
  if (!isPlainObject(value) || !hasPlainPrototype(value)) return false;
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor || !("value" in descriptor) || typeof descriptor.value !== "string") return false;
  }
  return true;
}

export const MetadataMapSchema = z.unknown().refine(isStringMap, "must be an object of string values").pipe(z.record(z.string(), z.string()));
