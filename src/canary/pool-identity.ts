// Pinning a canary pool's identity before its first check: replicas that disagree about what they serve would make a
// verdict depend on which one answered, so every endpoint must list the model, (Ollama) report the same digest,
// trained and loaded context, and answer the fixed fingerprint probes, sent exactly as a check, with the same SHA-256
// (which catches another model under the same name). Refusals are values naming endpoints by origin.
import { sha256Hex } from "../core/hash.js";
import type { OllamaCanaryProbe } from "./ollama-probe.js";
import type { OpenAICanaryProbe } from "./openai-probe.js";
import { UNVERIFIED_TEXT, tooSmallMessage, type LoadedContext } from "./run-context.js";
import { displayText } from "../core/display-text.js";
import { modelNotFoundMessage, printableModelName, unreachableFix, type ServedModels } from "./served-models.js";

/** What the probes of a pool must agree on, as pinned before the first check. */
interface PoolIdentity {
  readonly provider: "ollama" | "openai";
  readonly model: string;
  /** The model's digest from /api/tags (Ollama), null for an OpenAI-compatible pool. */
  readonly modelDigest: string | null;
  /** The trained context length from /api/show (Ollama), else null. */
  readonly contextLength: number | null;
  /** The loaded context every Ollama endpoint reported, or null when none can be proven. */
  readonly loaded: LoadedContext | null;
  /** SHA-256 over the SHA-256 of each fingerprint reply, in probe order. */
  readonly fingerprintSha256: string;
  /** How many fingerprint probes were sent to each endpoint. */
  readonly fingerprintProbes: number;
}

/** The pinned identity, or why the pool is refused. */
export type PinOutcome = { readonly ok: true; readonly identity: PoolIdentity } | { readonly ok: false; readonly error: string };

/** The first words of every fingerprint probe: fixed, so a log or a stand-in can tell them apart. */
export const FINGERPRINT_PROBE_PREFIX = "little-canary pool fingerprint probe";

/** The fixed fingerprint prompts: short and benign with one plain answer each, so one model at temperature 0 answers them alike on every replica. */
const FINGERPRINT_PROBE_TEXTS: readonly string[] = Object.freeze([
  `${FINGERPRINT_PROBE_PREFIX} 1 of 3. Name the colour of a clear daytime sky in one word.`,
  `${FINGERPRINT_PROBE_PREFIX} 2 of 3. What is 17 plus 25? Reply with the number only.`,
  `${FINGERPRINT_PROBE_PREFIX} 3 of 3. Write one short sentence about a lighthouse at night.`,
]);

/** A probe a pool can hold: the library's own probe of either provider, one per endpoint. */
export type PoolProbe = OllamaCanaryProbe | OpenAICanaryProbe;

const refuse = (error: string): PinOutcome => ({ ok: false, error });

interface OllamaFacts {
  readonly digest: string;
  readonly contextLength: number;
  readonly loaded: LoadedContext;
}

/** What a pin is asked to prove besides agreement (the ingest gate's segment requirement). */
export interface PinRequirement {
  /** Fewest tokens of trained context every endpoint must report (checked before any chat call). */
  readonly minContextLength?: number;
}

/** Phase 1, without a chat call: reachable, the model listed, its digest and trained context. */
async function inventoryFacts(probe: OllamaCanaryProbe, requirement: PinRequirement): Promise<Omit<OllamaFacts, "loaded"> | string> {
  const at = probe.endpointOrigin;
  const served = await probe.servedModels();
  if (served.kind !== "listed" || !served.hasModel) return withoutModel(at, probe.model, served);
  const digest = await probe.modelDigest();
  if (digest === null)
    return `canary endpoint ${at} lists the model ${displayText(probe.model)} without a usable digest in /api/tags, so its weights cannot be pinned`;
  const contextLength = await probe.contextLength();
  if (contextLength === null) return `canary endpoint ${at} did not report the trained context length of ${displayText(probe.model)} (/api/show)`;
  const min = requirement.minContextLength;
  if (min !== undefined && contextLength < min) {
    return `canary endpoint ${at}: the model's trained context length (${contextLength}) is smaller than the ${min} tokens a segment needs`;
  }
  return { digest, contextLength };
}

/**
 * Why an endpoint of a pool cannot serve the model, with the fix, as a single canary's refusal
 * says it (served-models.ts), the endpoint named by its origin and the URL by --canary-endpoint.
 */
function withoutModel(at: string, model: string, served: ServedModels): string {
  if (served.kind === "listed") return modelNotFoundMessage("ollama", model, at, served.names);
  if (served.kind === "unreachable")
    return `canary endpoint ${at} is not reachable (${served.cause ?? "no answer"}); ${unreachableFix("ollama", served.cause, true)}`;
  const why = served.timedOut === true ? "did not list its models in time" : "did not answer GET /api/tags with a model list";
  return `canary endpoint ${at} ${why}, so the model ${printableModelName(model)} cannot be found there; fix: check that it is an Ollama server`;
}

/** Phase 2: the probe's warm-up call and GET /api/ps, the context the endpoint really loaded. */
async function loadedFact(probe: OllamaCanaryProbe): Promise<LoadedContext | string> {
  const run = await probe.runContext();
  if (!run.ok) return `the canary warm-up call failed on ${probe.endpointOrigin} (${run.failureCode})`;
  const loaded = run.value.loaded;
  if (loaded.kind === "too_small") return `canary endpoint ${probe.endpointOrigin}: ${tooSmallMessage(loaded.contextLength, loaded.numCtx)}`;
  return loaded;
}

function describeLoaded(loaded: LoadedContext): string {
  return loaded.kind === "unverified" ? `an unproven context (${UNVERIFIED_TEXT[loaded.reason]})` : `a loaded context of ${loaded.contextLength}`;
}

function sameLoaded(a: LoadedContext, b: LoadedContext): boolean {
  if (a.kind === "unverified" || b.kind === "unverified") return a.kind === b.kind;
  return a.kind === b.kind && a.contextLength === b.contextLength;
}

/** The first refusal among `outcomes`, else all of them as values, in order. */
function allOrRefusal<T>(outcomes: readonly (T | string)[]): T[] | string {
  return outcomes.find((o): o is string => typeof o === "string") ?? (outcomes as T[]);
}

/** The Ollama facts of every endpoint, which must be equal; those needing no chat call are compared first, before any prompt is sent. */
async function pinOllama(probes: readonly OllamaCanaryProbe[], requirement: PinRequirement): Promise<OllamaFacts | string> {
  const at = (i: number): string => (probes[i] as OllamaCanaryProbe).endpointOrigin;
  const facts = allOrRefusal(await Promise.all(probes.map((probe) => inventoryFacts(probe, requirement))));
  if (typeof facts === "string") return facts;
  const first = facts[0] as Omit<OllamaFacts, "loaded">;
  const odd = facts.findIndex((f) => f.digest !== first.digest || f.contextLength !== first.contextLength);
  const f = facts[odd];
  if (f !== undefined) {
    return f.digest !== first.digest
      ? `canary endpoint ${at(odd)} serves ${displayText(String(probes[0]?.model))} with digest ${f.digest}, but ${at(0)} with digest ${first.digest}`
      : `canary endpoint ${at(odd)} reports a trained context length of ${f.contextLength}, but ${at(0)} of ${first.contextLength}`;
  }
  const contexts = allOrRefusal(await Promise.all(probes.map((probe) => loadedFact(probe))));
  if (typeof contexts === "string") return contexts;
  const reference = contexts[0] as LoadedContext;
  const other = contexts.findIndex((c) => !sameLoaded(c, reference));
  if (other >= 0) return `canary endpoint ${at(other)} has ${describeLoaded(contexts[other] as LoadedContext)}, but ${at(0)} has ${describeLoaded(reference)}`;
  return { ...first, loaded: reference };
}

/** One endpoint's fingerprint: SHA-256 over its replies' SHA-256, or the refusal text. */
async function fingerprintOf(probe: PoolProbe): Promise<{ readonly sha256: string } | string> {
  const hashes: string[] = [];
  // One probe after another: the fingerprint must not depend on how a replica batches requests.
  for (const text of FINGERPRINT_PROBE_TEXTS) {
    const result = await probe.test(text);
    if (!result.success) return `a fingerprint probe failed on canary endpoint ${probe.endpointOrigin} (${result.failureCode ?? "probe_exception"})`;
    hashes.push(sha256Hex(result.response));
  }
  return { sha256: sha256Hex(hashes.join("\n")) };
}

/** Pins the identity of a pool's probes (see the header), never throwing for backend trouble; all need temperature 0, so one request gets one answer. */
export async function pinPoolIdentity(probes: readonly PoolProbe[], requirement: PinRequirement = {}): Promise<PinOutcome> {
  try {
    const first = probes[0];
    if (first === undefined) return refuse("a canary pool needs at least one endpoint");
    if (probes.some((p) => p.temperature !== 0)) return refuse("a canary pool needs temperature 0: only then do replicas answer one request alike");
    let facts: OllamaFacts | null = null;
    if (first.provider === "ollama") {
      const pinned = await pinOllama(probes as readonly OllamaCanaryProbe[], requirement);
      if (typeof pinned === "string") return refuse(pinned);
      facts = pinned;
    } else {
      const answers = await Promise.all(probes.map((p) => p.isAvailable()));
      const down = answers.indexOf(false);
      if (down >= 0) return refuse(`canary endpoint ${probes[down]?.endpointOrigin} is unreachable (GET /models did not answer 200)`);
    }
    const prints = allOrRefusal(await Promise.all(probes.map((probe) => fingerprintOf(probe))));
    if (typeof prints === "string") return refuse(prints);
    const reference = (prints[0] as { readonly sha256: string }).sha256;
    const odd = prints.findIndex((p) => p.sha256 !== reference);
    if (odd >= 0) {
      return refuse(
        `canary endpoint ${probes[odd]?.endpointOrigin} answers the fixed fingerprint probes differently from ${first.endpointOrigin}: ` +
          "it may serve another model under the same name",
      );
    }
    return {
      ok: true,
      identity: Object.freeze({
        provider: first.provider,
        model: first.model,
        modelDigest: facts?.digest ?? null,
        contextLength: facts?.contextLength ?? null,
        loaded: facts?.loaded ?? null,
        fingerprintSha256: reference,
        fingerprintProbes: FINGERPRINT_PROBE_TEXTS.length,
      }),
    };
  } catch {
    return refuse("the canary pool's identity could not be pinned (unexpected failure)");
  }
}
