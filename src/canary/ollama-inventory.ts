// Reading Ollama's model inventory (`GET /api/tags`): whether a tag is installed and which digest
// it has. The digest that identifies the exact canary weights comes from here (Ollama gives it only here), not
// from /api/show. Every failure is "not known" (false / null); nothing here throws.
import type { FetchLike } from "./http-call.js";
import type { ServedModels } from "./served-models.js";
import { isPlainObject } from "../core/guards.js";
import { requestJson } from "./chat-exchange.js";

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
  const models = object?.["models"];
  if (!Array.isArray(models)) return { kind: "unknown" };
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
  // The availability rule: some entry's name equals the tag or starts with `<tag>:`.
  return { kind: "listed", names, hasModel: names.some((name) => name === tag || name.startsWith(`${tag}:`)) };
}

const DIGEST_PATTERN = /^[A-Za-z0-9:._-]{1,200}$/;

/** From /api/tags, the digest of exactly the weights Ollama would load for `tag` (name or model equal, else `<tag>:latest`; never a prefix), or null. */
export async function ollamaModelDigest(fetchFn: FetchLike, baseUrl: string, tag: string, timeoutMs: number): Promise<string | null> {
  const read = await readOllamaInventory(fetchFn, baseUrl, timeoutMs);
  if (read.kind !== "listed") return null;
  const exact = read.entries.find((e) => e.name === tag || e.model === tag);
  const entry = exact ?? (tag.includes(":") ? undefined : read.entries.find((e) => e.name === `${tag}:latest`));
  const digest = entry?.digest ?? null;
  return digest !== null && DIGEST_PATTERN.test(digest) ? digest : null;
}
