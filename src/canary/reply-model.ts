// The model a reply names (`model`, in both providers' replies), checked against the pinned one:
// behind a router one URL stands for many replicas, and one serving another model would otherwise
// answer unnoticed. A mismatch message names only the model that was expected.
import type { CanaryProvider } from "./types.js";

/**
 * True when `replyModel` names `expected`: the same string, or for Ollama `<expected>:latest`
 * when `expected` has no tag (how Ollama resolves an untagged name). A missing or non-string
 * `model` does not match: a reply that cannot say what answered cannot vouch for it.
 */
export function replyModelMatches(provider: CanaryProvider, replyModel: unknown, expected: string): boolean {
  if (typeof replyModel !== "string") return false;
  if (replyModel === expected) return true;
  return provider === "ollama" && !expected.includes(":") && replyModel === `${expected}:latest`;
}

/** The failure text of a reply from another model (fixed apart from the expected model's name). */
export function replyModelMismatchText(expected: string): string {
  return `Canary reply does not name the pinned model ${expected} (a router may have sent the request to another model); the check is not a pass`;
}
