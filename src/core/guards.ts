// Small type guards shared by every layer. One definition, so "is this a JSON object?" means
// the same thing in the reader, the canary backends, the server and the integrations.

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
