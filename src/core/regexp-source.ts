// Text placed inside a regular expression's source so that it matches only itself.

/** `text` with every character that is syntax in a regular expression escaped: a source that matches exactly `text`. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}
