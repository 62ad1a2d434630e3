// Who a canary backend is, for the callers that trust its verdicts without re-checking them (the
// verdict cache's key, the ingest context gate). Each backend class brands its instances here in
// its constructor and reports what can change its replies through `identity()`; callers ask this
// module, never `instanceof` against every backend class.
//
// The brand is private to this module (a WeakMap nobody else can write), recorded only for an
// instance of exactly the branded class, and holds only while the instance's prototype is the
// one it was built with and no own property shadows a method or accessor of its class: a
// replaced `test`, `identity` or `contextLength` means the object no longer behaves as its class
// says, so it is not the library's own.

/** The kinds of canary backend this library builds: one endpoint of a provider, or a pool of them. */
export type CanaryKind = "ollama" | "openai" | "embedded" | "pool";

/** The model file an embedded canary opened and the context its checks run in (canary/embedded-probe.ts). */
interface EmbeddedModelIdentity {
  readonly sha256: string;
  readonly engine: string;
  readonly engine_version: string;
  readonly context_size: number;
}

/** Everything of one canary backend that can change what a check of the same text returns. */
export interface ProbeIdentity {
  readonly provider: "ollama" | "openai" | "embedded";
  readonly model: string;
  readonly systemPrompt: string;
  /** The context window sent with every request (Ollama only; null elsewhere). */
  readonly numCtx: number | null;
  readonly temperature: number;
  readonly seed: number | null;
  readonly maxTokens: number;
  /** Embedded only: the opened model and engine, null until the engine has opened. */
  readonly embedded?: EmbeddedModelIdentity | null;
  /** A pool only: its pinned behavioural fingerprint (canary/pool-identity.ts), null until pinned. */
  readonly poolFingerprintSha256?: string | null;
}

/** A canary backend that reports its own identity. */
interface IdentifiedCanary {
  /** What of this backend can change a verdict (the same for every call until it is re-built). */
  identity(): ProbeIdentity;
}

interface Brand {
  readonly kind: CanaryKind;
  /** The prototype of an instance of exactly the branded class; null for a subclass's instance. */
  readonly prototype: object | null;
}

const brands = new WeakMap<object, Brand>();

/**
 * Brands `instance` as a canary backend of `kind`; called by each backend's constructor with
 * `exact` true only when `new.target` is the class itself (a subclass may change behaviour).
 */
export function brandCanary(instance: object, kind: CanaryKind, exact: boolean): void {
  brands.set(instance, { kind, prototype: exact ? Object.getPrototypeOf(instance) : null });
}

/** The kind of canary backend `value` was built as (subclasses included), or null for anything else. */
export function canaryKind(value: unknown): CanaryKind | null {
  return typeof value === "object" && value !== null ? (brands.get(value)?.kind ?? null) : null;
}

/** True when an own property of `value` shadows a method or accessor its prototype chain defines. */
function shadowsItsClass(value: object, prototype: object): boolean {
  return Object.getOwnPropertyNames(value).some((name) => {
    for (let p: object | null = prototype; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      const described = Object.getOwnPropertyDescriptor(p, name);
      if (described !== undefined) return typeof described.value === "function" || described.get !== undefined;
    }
    return false;
  });
}

/** True for an instance of exactly the library's `kind` backend class, unmodified since it was built. */
export function isOwnCanary(value: unknown, kind: CanaryKind): boolean {
  if (typeof value !== "object" || value === null) return false;
  const brand = brands.get(value);
  return (
    brand !== undefined &&
    brand.kind === kind &&
    brand.prototype !== null &&
    Object.getPrototypeOf(value) === brand.prototype &&
    !shadowsItsClass(value, brand.prototype)
  );
}

/** True for the library's own pool, unmodified, whose every endpoint is the library's own `memberKind` probe. */
export function isOwnPool(value: unknown, memberKind: CanaryKind): boolean {
  return (
    isOwnCanary(value, "pool") && (value as { readonly members: readonly { readonly probe: unknown }[] }).members.every((m) => isOwnCanary(m.probe, memberKind))
  );
}

/**
 * The identity of the canary backend `probe` built for `provider` (one endpoint, or a pool of
 * them), or why it cannot be trusted to report one: anything but the library's own, unmodified
 * backend of that provider.
 */
export function verifiedCanaryIdentity(probe: unknown, provider: ProbeIdentity["provider"]): ProbeIdentity | string {
  if (canaryKind(probe) === "pool") {
    if (!isOwnPool(probe, provider)) return "the pipeline's canary pool is not the library's own";
  } else if (!isOwnCanary(probe, provider)) {
    return "the pipeline's canary probe is not the library's own";
  }
  return (probe as IdentifiedCanary).identity();
}
