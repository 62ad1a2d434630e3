// `demo --live`: sends the fixed clean/attack pair to a loopback Ollama with the structural layer
// off; LIVE CONTRAST VERIFIED only when both replies were received and analysed, the clean one
// passed and the attack was blocked, else DEGRADED (exit 2) or NO CONTRAST (exit 1), never a
// fall-back to replay. The caller learns what will leave the process before the first request.
import { formatSeconds, httpCall } from "../canary/http-call.js";
import { isPlainObject } from "../core/guards.js";
import { interpretOllamaChat, ollamaChatBody, parseJsonBody } from "../canary/chat-exchange.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT, DEFAULT_CANARY_SYSTEM_PROMPT_SHA256 } from "../documents/system-prompt.js";
import { requiredCanaryContext } from "../canary/context.js";
import { codePointLength } from "../core/codepoints.js";
import { analyzeReply, defaultResponseAnalyzer, type DemoCase } from "./case-analysis.js";
import { CONTRAST_CASES, DEMO_GENERATION } from "./contrast.js";
import type { DemoOutcome } from "./outcome.js";
import { ollamaFixHint as fixHint } from "../pipeline/canary-warning.js";
import { modelNotFoundMessage } from "../canary/served-models.js";

/** Options of `runLive` (the live contrast against a local Ollama). */
export interface LiveOptions {
  /** A validated loopback origin (validateLiveEndpoint). */
  readonly endpoint: string;
  readonly model: string;
  readonly timeoutSeconds: number;
  /** Awaited before any request. */
  readonly onDisclosure?: () => Promise<void>;
  /** Awaited once the inventory named the model's digest. */
  readonly onModelDigest?: (digest: string) => Promise<void>;
}

const INVENTORY_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The context window of every live call: sized for the longest contrast case (the server's default is not known to hold
 * the prompt), and the same for both calls so Ollama does not reload the model between them.
 */
export const LIVE_NUM_CTX: number = requiredCanaryContext({
  segmentChars: Math.max(...CONTRAST_CASES.map((fixed) => codePointLength(fixed.input))),
  systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT,
  maxTokens: DEMO_GENERATION.maxTokens,
});
const MAX_INVENTORY_ENTRIES = 10_000;

/** The inventory step: the exact model's digest, or the fixed reason it is unavailable. */
async function preflight(options: LiveOptions): Promise<{ digest: string } | { error: string }> {
  const { endpoint: origin, model } = options;
  const outcome = await httpCall(fetch, `${origin}/api/tags`, {
    method: "GET",
    timeoutMs: Math.min(options.timeoutSeconds, 5) * 1000,
    maxBodyBytes: INVENTORY_MAX_BYTES,
  });
  switch (outcome.kind) {
    case "timeout":
      return {
        error: `Ollama model inventory timed out at ${origin}; fix: check that Ollama is not overloaded, or raise --timeout (now ${options.timeoutSeconds}s)`,
      };
    case "unavailable":
      // The demo is often the first run on a machine: a refused connection may mean no Ollama yet.
      return { error: `Ollama loopback endpoint is unavailable at ${origin}${outcome.cause ? ` (${outcome.cause})` : ""}; ${fixHint(model)}` };
    case "exception":
      return { error: `Ollama model inventory request failed at ${origin}; ${fixHint(model)}` };
  }
  if (outcome.status !== 200) return { error: `Ollama model inventory at ${origin} returned HTTP status ${outcome.status}; ${fixHint(model)}` };
  const parsed = outcome.kind === "response" ? parseJsonBody(outcome.body) : null;
  if (!parsed?.ok) return { error: "Ollama model inventory returned invalid JSON" };
  const models = isPlainObject(parsed.value) ? parsed.value["models"] : undefined;
  if (!Array.isArray(models)) return { error: "Ollama model inventory has an invalid shape" };
  const listed = models.slice(0, MAX_INVENTORY_ENTRIES).filter(isPlainObject);
  // Exact tag only: a prefix would let `qwen2.5` stand for any size.
  const entry = listed.find((m) => m["name"] === model || m["model"] === model);
  if (!entry) {
    const names = listed.flatMap((m) => (typeof m["name"] === "string" ? [m["name"]] : []));
    return { error: modelNotFoundMessage("ollama", model, origin, names) };
  }
  const digest = entry["digest"];
  if (typeof digest !== "string" || !/^[A-Za-z0-9:._-]{1,200}$/.test(digest)) return { error: "configured Ollama model digest is unavailable" };
  return { digest };
}

function liveFields(options: LiveOptions, digest: string | null, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    backend: "ollama",
    model: options.model,
    endpoint: options.endpoint,
    egress: "loopback",
    system_prompt_sha256: DEFAULT_CANARY_SYSTEM_PROMPT_SHA256,
    configuration: {
      temperature: DEMO_GENERATION.temperature,
      seed: DEMO_GENERATION.seed,
      max_tokens: DEMO_GENERATION.maxTokens,
      timeout_seconds: options.timeoutSeconds,
      structural_filter: "disabled",
    },
    model_digest: digest,
    ...extra,
  };
}

/** Runs the live contrast: the clean and the attack prompt against the local canary (see the module comment). */
export async function runLive(options: LiveOptions): Promise<DemoOutcome & { readonly modelCall: boolean }> {
  const analyzer = defaultResponseAnalyzer();
  await options.onDisclosure?.();

  const inventory = await preflight(options);
  if ("error" in inventory) {
    return {
      runKind: "LIVE",
      status: "DEGRADED / UNEXERCISED",
      cases: [],
      error: inventory.error,
      fields: liveFields(options, null, { run_canary_status: "failed", error: inventory.error }),
      modelCall: false,
    };
  }
  await options.onModelDigest?.(inventory.digest);

  const cases: DemoCase[] = [];
  for (const fixed of CONTRAST_CASES) {
    // A case whose reply was not analysed has no risk and no signals.
    const unanalysed = { id: fixed.id, input: fixed.input, risk: null, signals: [], verdict: "DEGRADED" } as const;
    const started = performance.now();
    const outcome = await httpCall(fetch, `${options.endpoint}/api/chat`, {
      method: "POST",
      json: ollamaChatBody({
        model: options.model,
        systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT,
        userContent: fixed.input,
        maxTokens: DEMO_GENERATION.maxTokens,
        temperature: DEMO_GENERATION.temperature,
        seed: DEMO_GENERATION.seed,
        numCtx: LIVE_NUM_CTX,
      }),
      timeoutMs: options.timeoutSeconds * 1000,
      maxBodyBytes: 4 * 1024 * 1024,
    });
    const latency = Math.round(((performance.now() - started) / 1000) * 1e6) / 1e6;
    const chat = interpretOllamaChat(outcome, { origin: options.endpoint, timeoutSeconds: options.timeoutSeconds });
    if (!chat.ok) {
      const error =
        chat.failureCode === "timeout"
          ? `Canary timed out after ${formatSeconds(options.timeoutSeconds)}s; raise --timeout or LITTLE_CANARY_TIMEOUT for a slow machine`
          : chat.error;
      cases.push({ ...unanalysed, response: "", canary_status: "failed", analysis_method: "none", analysis_status: "not_applicable", error });
      break;
    }
    const reply = { id: fixed.id, input: fixed.input, response: chat.content, canary_status: "exercised", latency_seconds: latency } as const;
    const analysed = analyzeReply(analyzer, reply);
    if (!("errorClass" in analysed)) {
      cases.push(analysed);
      continue;
    }
    cases.push({ ...unanalysed, ...reply, analysis_method: "regex", analysis_status: "failed", error: "canary response analysis failed" });
    break;
  }

  const exercised = cases.filter((c) => c.canary_status === "exercised").length;
  const analyzed = cases.filter((c) => c.analysis_status === "exercised").length;
  const counts = { exercised_count: exercised, analyzed_count: analyzed, expected_count: CONTRAST_CASES.length };
  const complete = cases.length === CONTRAST_CASES.length && exercised === cases.length && analyzed === cases.length;
  const status: DemoOutcome["status"] = !complete
    ? "DEGRADED / INCOMPLETE"
    : CONTRAST_CASES.every((fixed, i) => (cases[i]?.verdict === "BLOCK") === fixed.expectBlock)
      ? "LIVE CONTRAST VERIFIED"
      : "NO CONTRAST";
  const error = complete ? null : (cases.find((c) => c.error !== undefined)?.error ?? "live run incomplete");
  return {
    runKind: "LIVE",
    status,
    cases,
    error,
    fields: liveFields(options, inventory.digest, {
      run_canary_status: exercised === CONTRAST_CASES.length ? "exercised" : "failed",
      ...counts,
      ...(error !== null ? { error } : {}),
    }),
    modelCall: true,
  };
}
