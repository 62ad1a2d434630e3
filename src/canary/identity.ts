// Who a canary backend is, for callers that trust its verdicts (the verdict cache's key, the ingest gate) or treat a
// kind differently (a pool, an Ollama digest): each backend class brands its instances here and reports what can
// change its replies through `identity()`, so nobody tests `instanceof`. The brand registry (core/own-brand.ts) is
// private: an instance with a replaced method is not the library's own.
import { brandRegistry } from "../core/own-brand.js";
import type { ChatSettings } from "./options.js";
import type { CanaryProbe, CanaryProvider } from "./types.js";

/** The kinds of canary backend this library builds: one endpoint of a provider, or a pool of them. */
export type CanaryKind = "ollama" | "openai" | "embedded" | "pool";

/** The model file an embedded canary opened and the context its checks run in (canary/embedded-probe.ts). */
export interface EmbeddedModelIdentity {
  readonly sha256: string;
  readonly engine: string;
  readonly engine_version: string;
  /** Tokens per sequence of the context the checks run in. */
  readonly context_size: number;
}

/** Everything of one canary backend that can change what a check of the same text returns. */
export interface ProbeIdentity extends Pick<ChatSettings, "model" | "temperature" | "seed" | "maxTokens"> {
  readonly provider: CanaryProvider;
  readonly systemPrompt: string;
  /** The context window sent with every request (Ollama only; null elsewhere). */
  readonly numCtx: number | null;
  /** Embedded only: the opened model and engine, null until the engine has opened. */
  readonly embedded?: EmbeddedModelIdentity | null;
  /** A pool only: its pinned behavioural fingerprint (canary/pool-identity.ts), null until pinned. */
  readonly poolFingerprintSha256?: string | null;
}

/**
 * The canary backends' brands (core/own-brand.ts): each backend's constructor calls `brandCanary`, `canaryKind` names the
 * kind a value was built as (subclasses included), `isOwnCanary` is true only for an unmodified instance of the library's class.
 */
export const { brand: brandCanary, kindOf: canaryKind, isOwn: isOwnCanary } = brandRegistry<CanaryKind>();

/** The endpoints of a canary pool (subclasses included), or null for anything but a pool. */
export function poolMembers(value: unknown): readonly CanaryProbe[] | null {
  return canaryKind(value) === "pool" ? (value as { readonly members: readonly { readonly probe: CanaryProbe }[] }).members.map((m) => m.probe) : null;
}

/** True for the library's own pool, unmodified, whose every endpoint is the library's own `memberKind` probe. */
export function isOwnPool(value: unknown, memberKind: CanaryKind): boolean {
  return isOwnCanary(value, "pool") && (poolMembers(value) as readonly CanaryProbe[]).every((probe) => isOwnCanary(probe, memberKind));
}

type KnownPin = { readonly ok: true; readonly identity: { readonly modelDigest: string | null } } | { readonly ok: false };

/** The canary model's digest as the backend knows it (an Ollama probe asks GET /api/tags, a pool reads its pin); null for other kinds and while unknown. */
export async function knownModelDigest(probe: unknown): Promise<string | null> {
  const kind = canaryKind(probe);
  if (kind === "ollama") return (probe as { modelDigest(): Promise<string | null> }).modelDigest();
  // The pool's PinOutcome (pool-identity.ts), read structurally: that module imports the probes, which import this one.
  const pinned = kind === "pool" ? (probe as { readonly knownPin: KnownPin | null }).knownPin : null;
  return pinned?.ok ? pinned.identity.modelDigest : null;
}

/** The identity of `probe` built for `provider` (one endpoint or a pool), or why it cannot be trusted: it is not the library's own, unmodified backend. */
export function verifiedCanaryIdentity(probe: unknown, provider: ProbeIdentity["provider"]): ProbeIdentity | string {
  if (canaryKind(probe) === "pool") {
    if (!isOwnPool(probe, provider)) return "the pipeline's canary pool is not the library's own";
  } else if (!isOwnCanary(probe, provider)) {
    return "the pipeline's canary probe is not the library's own";
  }
  return (probe as { identity(): ProbeIdentity }).identity();
}
