// An LLM judge on an OpenAI-compatible API: the Ollama judge's verdict rules over the OpenAI
// probe's transport. The API key stays in a private field and is sent only as a Bearer header.
import { OpenAIChatBackend, type ChatClientOptions } from "../canary/chat-backend.js";
import { DEFAULT_OPENAI_MODEL } from "../canary/defaults.js";
import { ChatJudge, judgeRole } from "./judge-verdict.js";
import { brandAnalyzer } from "../analysis/identity.js";

/** The judge's generation settings (model, timeout, reply budget, temperature, seed, fetch), its URL and key. */
export interface OpenAIJudgeOptions extends ChatClientOptions {
  readonly baseUrl?: string;
  readonly apiKey?: string;
}

const JUDGE_ROLE = judgeRole(DEFAULT_OPENAI_MODEL, "judge baseUrl");

/** An LLM judge on an OpenAI-compatible API. */
export class OpenAIJudge extends ChatJudge<OpenAIChatBackend> {
  readonly provider = "openai" as const;

  constructor(options: OpenAIJudgeOptions = {}) {
    super(new OpenAIChatBackend(options, JUDGE_ROLE), null);
    brandAnalyzer(this, "openai_judge", new.target === OpenAIJudge);
  }

  override toString(): string {
    return `OpenAIJudge(${this.model} at ${this.endpointOrigin})`;
  }
}
