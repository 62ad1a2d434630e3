// Proof that an Ollama canary sees whole prompts (docs/canary.md).
// Ollama may cap or ignore the `num_ctx` it is sent, keep only the second half of an over-long
// prompt, answer 200 and report the post-truncation `prompt_eval_count`, so a reply alone cannot
// show that the model read the whole input. Once per run the probe sends a known calibration
// prompt (the warm-up) and then reads `GET /api/ps`:
//   - the loaded model's `context_length` must be at least the `num_ctx` that was sent, else the
//     run is refused: every check is `context_truncated` and no text is sent;
//   - the warm-up's `prompt_eval_count` gives the backend's bytes per token on known text, from
//     which each reply gets a lower bound on the prompt tokens its prompt must have cost.
// Nothing here throws; every way the proof can fail is a value.
import type { FetchLike } from "./http-call.js";
import { isPlainObject } from "../core/guards.js";
import { requestJson } from "./chat-exchange.js";
import { utf8ByteLength } from "../core/codepoints.js";
import { CHAT_TEMPLATE_ALLOWANCE } from "./context.js";

/**
 * The warm-up's user message: fixed, benign English prose, long enough (about 1 KB) that the
 * chat template's few tokens barely move the measured bytes per token.
 */
export const CALIBRATION_PROBE_TEXT =
  "Calibration note for the context check. The quick brown fox jumps over the lazy dog near the " +
  "river bank, while a small group of children watch from the old stone bridge. In the afternoon " +
  "the weather turned cooler, and the market stalls along the main street began to close one by " +
  "one. A baker counted the loaves that were left, a florist watered the last buckets of tulips, " +
  "and a bookseller carried boxes of paperbacks back into his narrow shop. Later that evening the " +
  "lights of the harbour came on, the ferry sounded its horn twice, and the town settled into its " +
  "usual quiet rhythm of conversation, footsteps and distant music. Please reply with one short " +
  "sentence that summarises this paragraph in plain words, without lists or headings.";

/**
 * How much denser in bytes per token a prompt may be than the calibration text before its reply
 * is treated as cut. Keep-half truncation leaves at most half of a prompt's tokens, so any margin
 * below 2 catches it for text that tokenizes like the calibration prose or more finely (CJK,
 * code, base64); 1.6 leaves room for prose that packs up to 1.6 times the calibration's bytes per
 * token. Text packed denser than that (long runs of one repeated character) can be reported as
 * `context_truncated` although it fitted: a false "degraded", never a false pass.
 */
export const LOWER_BOUND_MARGIN = 1.6;

/**
 * The context the lower bound may assume without `/api/ps`: the smallest default Ollama loads.
 * The byte-based lower bound sees a keep-half cut only for text that packs at least 0.8 times the
 * calibration's bytes per token; text that tokenizes more finely (digit runs on tokenizers that
 * split numbers digit by digit, base64, emoji, scripts that fall back to bytes) can lose half its
 * tokens and still report more than the bound. So when the loaded context is not proven, a
 * reply vouches for its prompt only if the prompt cannot have needed more than this many tokens
 * even at one token per UTF-8 byte (the most any byte-level tokenizer spends), plus the chat
 * template allowance.
 */
export const UNVERIFIED_SAFE_CONTEXT = 2048;

/** Most tokens a prompt can cost: one per UTF-8 byte of system prompt and text, plus the template. */
export function worstCasePromptTokens(systemPrompt: string, userContent: string): number {
  return utf8ByteLength(systemPrompt) + utf8ByteLength(userContent) + CHAT_TEMPLATE_ALLOWANCE;
}

/** What the one-token-per-byte rule found for one prompt (see `provenByByteBound`). */
export interface ByteBoundProof {
  /** True when the whole prompt and its reply budget fit `window` even at one token per byte. */
  readonly fits: boolean;
  /** Most tokens the prompt and its reply budget can need: `worstCasePromptTokens` + `maxTokens`. */
  readonly needed: number;
  /** The window the prompt was held to. */
  readonly window: number;
}

/**
 * The rule for a reply whose prompt nobody counted exactly and whose server's window is only the
 * server's word (an OpenAI-compatible server without `POST /tokenize`): the prompt provably fits
 * only when the system prompt and text at one token per UTF-8 byte (the most any byte-level
 * tokenizer spends), the chat template allowance and the reply budget fit the smaller of the
 * reported window and UNVERIFIED_SAFE_CONTEXT, the smallest window of the servers known to cut
 * an over-long prompt silently. Any other reply is `context_unverified`, never a pass: a lower
 * bound on prompt tokens cannot be sound without the tokenizer's largest bytes per token.
 */
export function provenByByteBound(systemPrompt: string, userContent: string, maxTokens: number, reportedWindow: number | null): ByteBoundProof {
  const needed = worstCasePromptTokens(systemPrompt, userContent) + Math.max(0, maxTokens);
  const window = reportedWindow === null ? UNVERIFIED_SAFE_CONTEXT : Math.min(reportedWindow, UNVERIFIED_SAFE_CONTEXT);
  return { fits: needed <= window, needed, window };
}

/** A `/api/ps` answer listing every loaded model is small; more than this is not trusted. */
const MAX_PS_BYTES = 1024 * 1024;
const MAX_PS_ENTRIES = 1_000;

/** What the run knows about the context the backend really loaded. */
export type LoadedContext =
  | { readonly kind: "verified"; readonly contextLength: number }
  | { readonly kind: "too_small"; readonly contextLength: number; readonly numCtx: number }
  | { readonly kind: "unverified"; readonly reason: UnverifiedReason };

export type UnverifiedReason = "num_ctx_unset" | "ps_unavailable" | "model_not_loaded" | "context_length_missing";

/** Fixed, secret-free explanation of each unverified state (shown in errors and docs). */
export const UNVERIFIED_TEXT: Readonly<Record<UnverifiedReason, string>> = {
  num_ctx_unset: "no num_ctx was sent, so there is nothing to compare the loaded context with",
  ps_unavailable: "GET /api/ps did not answer with a model list (Ollama older than the endpoint, or a proxy)",
  model_not_loaded: "GET /api/ps did not list the canary model after the warm-up call",
  context_length_missing: "GET /api/ps listed the model without a usable context_length (Ollama too old to report it)",
};

/** The result of the warm-up and `/api/ps` read, fixed for the rest of the run. */
export interface RunContext {
  readonly loaded: LoadedContext;
  /** Bytes per prompt token measured on the calibration prompt, or null when not reported. */
  readonly bytesPerToken: number | null;
}

/** Bytes per token of the calibration prompt (system + user), or null for an unusable count. */
export function calibrate(systemPrompt: string, promptEvalCount: unknown): number | null {
  if (typeof promptEvalCount !== "number" || !Number.isSafeInteger(promptEvalCount) || promptEvalCount <= 0) return null;
  const bytes = utf8ByteLength(systemPrompt) + utf8ByteLength(CALIBRATION_PROBE_TEXT);
  return bytes / promptEvalCount;
}

/**
 * Fewest prompt tokens a whole prompt of `systemPrompt` + `userContent` can plausibly cost: its
 * UTF-8 bytes over the calibrated bytes per token times the margin. A reply that reports fewer
 * was computed on a cut prompt.
 */
export function minimumPromptTokens(systemPrompt: string, userContent: string, bytesPerToken: number): number {
  const bytes = utf8ByteLength(systemPrompt) + utf8ByteLength(userContent);
  return Math.floor(bytes / (bytesPerToken * LOWER_BOUND_MARGIN));
}

/**
 * The loaded model's entry of a parsed `/api/ps` body: `name` or `model` equal to the tag, or
 * `<tag>:latest` for an untagged tag (how Ollama resolves it). A prefix match is not used:
 * `qwen2.5` must not match another size that happens to be loaded.
 */
export function psEntryContextLength(body: unknown, tag: string): number | "not_loaded" | "missing" | "invalid" {
  if (!isPlainObject(body) || !Array.isArray(body["models"])) return "invalid";
  const entries = (body["models"] as unknown[]).slice(0, MAX_PS_ENTRIES).filter(isPlainObject);
  const named = (e: Record<string, unknown>, name: string): boolean => e["name"] === name || e["model"] === name;
  const entry = entries.find((e) => named(e, tag)) ?? (tag.includes(":") ? undefined : entries.find((e) => named(e, `${tag}:latest`)));
  if (entry === undefined) return "not_loaded";
  const value = entry["context_length"];
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : "missing";
}

/** Reads `GET /api/ps` and compares the model's loaded context with the `num_ctx` sent. */
export async function readLoadedContext(fetchFn: FetchLike, baseUrl: string, tag: string, numCtx: number | null, timeoutMs: number): Promise<LoadedContext> {
  if (numCtx === null) return { kind: "unverified", reason: "num_ctx_unset" };
  const { object } = await requestJson(fetchFn, baseUrl, "/api/ps", { timeoutMs, maxBodyBytes: MAX_PS_BYTES });
  const found = psEntryContextLength(object, tag);
  if (found === "invalid") return { kind: "unverified", reason: "ps_unavailable" };
  if (found === "not_loaded") return { kind: "unverified", reason: "model_not_loaded" };
  if (found === "missing") return { kind: "unverified", reason: "context_length_missing" };
  return found >= numCtx ? { kind: "verified", contextLength: found } : { kind: "too_small", contextLength: found, numCtx };
}

/** The refusal text for a backend that loaded a smaller context than was sent. */
export function tooSmallMessage(contextLength: number, numCtx: number): string {
  return (
    `Ollama loaded the canary model with a context of ${contextLength} tokens, below the num_ctx ${numCtx} that was sent; ` +
    "it would cut long prompts silently (raise the server's cap, e.g. OLLAMA_CONTEXT_LENGTH, or use a server that honours num_ctx)"
  );
}
