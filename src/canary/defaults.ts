// Default endpoints and models of the two providers, shared by the probes and the judges (a judge runs where its probe does).

/** Where a local Ollama listens unless told otherwise. */
export const DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";
/** The canary model pulled by default on Ollama. */
export const DEFAULT_CANARY_MODEL = "qwen2.5:1.5b";
/** The OpenAI API base URL used when no `baseUrl` is given. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The canary model used by default on an OpenAI-compatible API. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
