// Who an analyzer is, for callers that trust its conclusions without re-checking (the verdict
// cache's key, the ingest context gate): each analyzer brands its instances here (the registry,
// core/own-brand.ts, is private to this module) and reports through `identity()` what can change
// a conclusion; an instance with a replaced `analyze` or `identity` is not the library's own.
import { brandRegistry } from "../core/own-brand.js";

/** The analyzers this library builds: the regex analyzer, or an LLM judge on one provider. */
export type AnalyzerKind = "regex" | "ollama_judge" | "openai_judge";

/** What of the regex analyzer can change its conclusion about the same reply. */
export interface RegexAnalyzerIdentity {
  readonly method: "regex";
  /** The rule version (REGEX_ANALYZER_VERSION). */
  readonly version: number;
  readonly blockThreshold: number;
  /** The canary's system prompt, whose fragments the leak check looks for. */
  readonly systemPrompt: string;
}

/** What of an LLM judge can change its conclusion about the same reply (its model's digest is the server's to say). */
export interface JudgeIdentity {
  readonly method: "llm_judge";
  /** The verdict rules' version (JUDGE_RULES_VERSION). */
  readonly version: number;
  readonly provider: "ollama" | "openai";
  readonly model: string;
  /** SHA-256 of the judge's system prompt. */
  readonly promptSha256: string;
  /** The context window sent with every call (Ollama only; null elsewhere). */
  readonly numCtx: number | null;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;
}

/** Everything of one analyzer that can change what it concludes about the same canary reply. */
export type AnalyzerIdentity = RegexAnalyzerIdentity | JudgeIdentity;

const brands = brandRegistry<AnalyzerKind>();

/** The analyzers' brands: each constructor calls `brandAnalyzer`; `analyzerKind` names the kind a value was built as (subclasses included). */
export const { brand: brandAnalyzer, kindOf: analyzerKind } = brands;

/** The identity of `analyzer` when it is the library's own, unmodified analyzer of `kind`; else null (nothing it concluded may be reused). */
export function verifiedAnalyzerIdentity(analyzer: unknown, kind: AnalyzerKind): AnalyzerIdentity | null {
  return brands.isOwn(analyzer, kind) ? (analyzer as { identity(): AnalyzerIdentity }).identity() : null;
}
