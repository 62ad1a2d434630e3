// Ollama's read-only proofs. That a canary sees whole prompts (docs/canary.md): Ollama may cap the `num_ctx` it is sent
// and cut an over-long prompt while answering 200, so once per run the probe sends a known calibration prompt and reads
// `GET /api/ps` (the loaded `context_length` must hold the `num_ctx` sent), and the warm-up's `prompt_eval_count` gives
// bytes per token, for a lower bound on each reply's prompt tokens. And its inventory (`GET /api/tags`): whether a tag
// is installed, and its digest (the exact weights, given only there). Every failure is a value; nothing here throws.
import type { FetchLike } from "./http-call.js";
import { errorStatus, type ServedModels } from "./served-models.js";
import { isPlainObject } from "../core/guards.js";
import { requestJson } from "./chat-exchange.js";
import { utf8ByteLength } from "../core/codepoints.js";
import { CHAT_TEMPLATE_ALLOWANCE } from "./context.js";

/** The warm-up's user message: fixed, benign prose, long enough (about 1 KB) that the chat template's few tokens barely move the bytes per token. */
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
 * How much denser in bytes per token than the calibration text a prompt may be before its reply is treated as cut.
 * Keep-half truncation leaves at most half the tokens, so any margin below 2 catches it for text tokenizing like the
 * calibration prose or finer (CJK, code, base64); 1.6 leaves room for denser prose. Denser text still (long runs of one
 * character) can be reported `context_truncated` although it fitted: a false "degraded", never a false pass.
 */
export const LOWER_BOUND_MARGIN = 1.6;

/**
 * The context the lower bound may assume without `/api/ps`: Ollama's smallest default. The bound misses a keep-half
 * cut of finely tokenized text (digits, base64, emoji), so it vouches only for a prompt that fits this at one token per byte.
 */
export const UNVERIFIED_SAFE_CONTEXT = 2048;

/** Most tokens a prompt can cost: one per UTF-8 byte of system prompt and text, plus the template. */
export function worstCasePromptTokens(systemPrompt: string, userContent: string): number {
  return utf8ByteLength(systemPrompt) + utf8ByteLength(userContent) + CHAT_TEMPLATE_ALLOWANCE;
}

/**
 * The rule for a prompt nobody counted, on a server whose window is only its word (no `POST /tokenize`): it `fits` only when,
 * at one token per UTF-8 byte, it and the reply budget (`needed`: worstCasePromptTokens + maxTokens) fit the `window` it is
 * held to, the smaller of the reported window and UNVERIFIED_SAFE_CONTEXT.
 */
export function provenByByteBound(
  systemPrompt: string,
  userContent: string,
  maxTokens: number,
  reportedWindow: number | null,
): { fits: boolean; needed: number; window: number } {
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

/** Fewest prompt tokens the whole prompt can plausibly cost (bytes over calibrated bytes per token × margin); fewer means it was cut. */
export function minimumPromptTokens(systemPrompt: string, userContent: string, bytesPerToken: number): number {
  const bytes = utf8ByteLength(systemPrompt) + utf8ByteLength(userContent);
  return Math.floor(bytes / (bytesPerToken * LOWER_BOUND_MARGIN));
}

/** The `context_truncated` text when a reply's `counted` prompt tokens (its `field`) fall below minimumPromptTokens, else null. */
export function belowLowerBound(field: string, counted: number, systemPrompt: string, userContent: string, bytesPerToken: number): string | null {
  const minimum = minimumPromptTokens(systemPrompt, userContent, bytesPerToken);
  return counted < minimum ? `Canary prompt was truncated by the backend (${field} ${counted} is below the ${minimum} tokens the whole prompt needs)` : null;
}

/** The context length of the tag's entry in a `/api/ps` body (`name` or `model` equal, or `<tag>:latest`; never a prefix). */
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

/** An inventory of many models is a few hundred KiB; more than this is not an honest answer. */
const MAX_TAGS_BYTES = 4 * 1024 * 1024;
/** Cap on inventory entries examined, so a hostile answer cannot make us loop for long. */
const MAX_ENTRIES = 10_000;

interface InventoryEntry {
  readonly name: string | null;
  readonly model: string | null;
  readonly digest: string | null;
}

/** The inventory, or what ServedModels says when there is none. */
type InventoryRead = { readonly kind: "listed"; readonly entries: InventoryEntry[] } | Exclude<ServedModels, { readonly kind: "listed" }>;

async function readOllamaInventory(fetchFn: FetchLike, baseUrl: string, timeoutMs: number): Promise<InventoryRead> {
  const { outcome, object } = await requestJson(fetchFn, baseUrl, "/api/tags", { timeoutMs, maxBodyBytes: MAX_TAGS_BYTES });
  if (outcome?.kind === "unavailable") return { kind: "unreachable", cause: outcome.cause ?? null };
  // A server that accepts the connection and never answers is not "not Ollama": say it timed out.
  if (outcome?.kind === "timeout") return { kind: "unknown", timedOut: true };
  const models = object?.["models"];
  if (!Array.isArray(models)) return { kind: "unknown", ...errorStatus(outcome) };
  const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
  const entries = models
    .slice(0, MAX_ENTRIES)
    .filter(isPlainObject)
    .map((item) => ({ name: text(item["name"]), model: text(item["model"]), digest: text(item["digest"]) }));
  return { kind: "listed", entries };
}

/** What /api/tags says about `tag`, for the availability check and the pre-run model check; never throws. */
export async function ollamaServedModels(fetchFn: FetchLike, baseUrl: string, tag: string, timeoutMs: number): Promise<ServedModels> {
  const read = await readOllamaInventory(fetchFn, baseUrl, timeoutMs);
  if (read.kind !== "listed") return read;
  const names = read.entries.map((e) => e.name).filter((name): name is string => name !== null);
  // The availability rule is Ollama's own: the entry named exactly the tag, or for a tag without
  // one (`qwen2.5`) the `:latest` entry, which is what Ollama loads for it. Another tag of the same
  // model (`qwen2.5:1.5b`) does not serve `qwen2.5`: a chat naming it would be refused.
  const latest = latestNameOf(tag);
  return { kind: "listed", names, hasModel: names.some((name) => name === tag || name === latest) };
}

/** The name Ollama loads for a tag given without one (`qwen2.5` is `qwen2.5:latest`), or null for a tagged one. */
function latestNameOf(tag: string): string | null {
  return tag.includes(":") ? null : `${tag}:latest`;
}

const DIGEST_PATTERN = /^[A-Za-z0-9:._-]{1,200}$/;

/** From /api/tags, the digest of exactly the weights Ollama would load for `tag` (name or model equal, else `<tag>:latest`; never a prefix), or null. */
export async function ollamaModelDigest(fetchFn: FetchLike, baseUrl: string, tag: string, timeoutMs: number): Promise<string | null> {
  const read = await readOllamaInventory(fetchFn, baseUrl, timeoutMs);
  if (read.kind !== "listed") return null;
  const exact = read.entries.find((e) => e.name === tag || e.model === tag);
  const latest = latestNameOf(tag);
  const entry = exact ?? (latest === null ? undefined : read.entries.find((e) => e.name === latest));
  const digest = entry?.digest ?? null;
  return digest !== null && DIGEST_PATTERN.test(digest) ? digest : null;
}
