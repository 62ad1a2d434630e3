// The model a reply says it came from, checked against the model the run pinned. Behind a router
// (LiteLLM, a Kubernetes Service) one URL stands for many replicas, and a replica that serves
// another model would otherwise answer unnoticed; both Ollama's `/api/chat` and an
// OpenAI-compatible `/chat/completions` reply carry the model's name in `model`. The reply's
// own text is never shown: a mismatch message names only the model that was expected.
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
