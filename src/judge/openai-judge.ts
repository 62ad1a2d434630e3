// An LLM judge on an OpenAI-compatible API: same verdict rules as the Ollama
// judge over the same transport as the OpenAI probe. The API key stays in a private field and is
// sent only as a Bearer header.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { ChatClient, OpenAIChatBackend, type ChatClientOptions } from "../canary/chat-backend.js";
import { DEFAULT_OPENAI_MODEL } from "../canary/defaults.js";
import { judgeCanaryReply, judgeIdentity, judgeRole } from "./judge-verdict.js";
import { brandAnalyzer, type JudgeIdentity } from "../analysis/identity.js";

/** The judge's generation settings (model, timeout, reply budget, temperature, seed, fetch), its URL and key. */
export interface OpenAIJudgeOptions extends ChatClientOptions {
  readonly baseUrl?: string;
  readonly apiKey?: string;
}

const JUDGE_ROLE = judgeRole(DEFAULT_OPENAI_MODEL, "judge baseUrl");

export class OpenAIJudge extends ChatClient<OpenAIChatBackend> implements Analyzer {
  readonly method = "llm_judge" as const;
  readonly provider = "openai" as const;

  constructor(options: OpenAIJudgeOptions = {}) {
    super(new OpenAIChatBackend(options, JUDGE_ROLE));
    brandAnalyzer(this, "openai_judge", new.target === OpenAIJudge);
  }

  /** What can change this judge's conclusion about the same reply, but its model's digest (read by the verdict cache). */
  identity(): JudgeIdentity {
    return judgeIdentity(this.provider, this, null);
  }

  /** Judges one canary reply; a failure or abstention is a degraded, unmeasured result, never a pass. */
  analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    return judgeCanaryReply(userInput, canary, this.maxTokens, (turn) => this.backend.chat(turn));
  }

  override toString(): string {
    return `OpenAIJudge(${this.model} at ${this.endpointOrigin})`;
  }
}
