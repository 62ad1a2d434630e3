// One chat backend per provider, shared by the canary probe and the LLM judge: the validated settings, the endpoint
// (its full base URL, which may hold credentials, stays private), the chat call, the availability check and the
// public description. The roles keep only what is theirs.
import type { FetchLike, HttpCallOutcome } from "./http-call.js";
import type { CanaryMetadata } from "./types.js";
import { CHAT_PROTOCOLS, postChat, type ChatEndpoint, type ChatMessages, type ChatOutcome, type ChatTurn } from "./chat-exchange.js";
import { DEFAULT_OLLAMA_URL, DEFAULT_OPENAI_BASE_URL } from "./defaults.js";
import { endpointOrigin, notAnHttpUrl, serviceRequestTarget } from "./endpoint.js";
import { ollamaServedModels } from "./run-context.js";
import type { ServedModels } from "./served-models.js";
import { openAIModelAvailable, openAIServedModels, probeOpenAIIdentity, tokenizeCount } from "./openai-identity.js";
import { ChatSettings, checkApiKey, resolveChatSettings } from "./options.js";

/** A model list is small: the call's own timeout, but never more than 30 s before the first check. */
function modelListTimeoutMs(timeoutSeconds: number): number {
  return Math.min(timeoutSeconds, 30) * 1000;
}

/** Caller options every chat client takes: the generation settings (defaults: the role's) and the HTTP client. */
export interface ChatClientOptions extends Partial<ChatSettings> {
  readonly fetch?: FetchLike;
}

/** How one role uses a backend: its defaults and the names its messages use. */
export interface ChatRole {
  readonly defaults: { readonly model: string; readonly timeoutSeconds: number; readonly maxTokens: number };
  /** Prefix of option names in messages ("judge"), empty for the probe. */
  readonly name: string;
  /** The option name of the URL in messages ("ollamaUrl", "judge baseUrl"…). */
  readonly urlOption: string;
  /** The role's own checks, run after the settings and before the endpoint (the order of refusals). */
  readonly check?: () => void;
}

/** Settings, endpoint and chat call shared by both providers. */
abstract class ChatBackendBase {
  abstract readonly provider: keyof typeof CHAT_PROTOCOLS;
  /** The validated generation settings (model, timeout, reply budget, temperature, seed). */
  readonly settings: ChatSettings;
  readonly endpointOrigin: string;
  readonly #endpoint: ChatEndpoint;
  readonly #apiKey: string;

  /** `checkKey` validates the provider's API key ("" for none) after the role's checks, before the URL. */
  protected constructor(options: ChatClientOptions, url: string, role: ChatRole, checkKey: () => string) {
    this.settings = Object.freeze(resolveChatSettings(options, role.defaults, role.name));
    role.check?.();
    this.#apiKey = checkKey();
    // The full URL stays private (it may hold credentials); only its origin is shown.
    if (typeof url !== "string" || serviceRequestTarget(url, "") === null) throw notAnHttpUrl(role.urlOption);
    this.endpointOrigin = endpointOrigin(url);
    this.#endpoint = Object.freeze({
      fetch: options.fetch ?? globalThis.fetch,
      baseUrl: url,
      origin: this.endpointOrigin,
      timeoutSeconds: this.settings.timeoutSeconds,
    });
  }

  /** Where and how chat requests go (holds the full base URL: for the owning client only). */
  get endpoint(): ChatEndpoint {
    return this.#endpoint;
  }

  /** How failure messages name this provider ("Ollama returned HTTP status 500", "API …"). */
  get service(): string {
    return CHAT_PROTOCOLS[this.provider].service;
  }

  /** What a client shows of itself: never the full URL or a key. */
  describe(): { provider: "ollama" | "openai"; model: string; endpointOrigin: string } {
    return { provider: this.provider, model: this.settings.model, endpointOrigin: this.endpointOrigin };
  }

  /** POSTs one turn in the provider's request shape (Ollama: `numCtx` as options.num_ctx); null when no request can be built. */
  post(turn: ChatTurn, numCtx: number | null = null): Promise<HttpCallOutcome | null> {
    const { model, temperature, seed } = this.settings;
    const { path, body } = CHAT_PROTOCOLS[this.provider];
    return postChat(this.#endpoint, path, body({ model, temperature, seed, numCtx, ...turn }), this.#apiKey, turn.signal);
  }

  /**
   * The checks a reply must pass before its content counts (see interpretOllamaChat,
   * interpretOpenAIChat); `maxTokens`: the reply budget the request asked for.
   */
  interpret(outcome: HttpCallOutcome, maxTokens: number): ChatOutcome {
    return CHAT_PROTOCOLS[this.provider].interpret(outcome, { origin: this.endpointOrigin, timeoutSeconds: this.settings.timeoutSeconds, maxTokens });
  }

  /** One chat: the request, then the reply checks; null when the request could not be built. */
  async chat(turn: ChatTurn, numCtx: number | null = null): Promise<ChatOutcome | null> {
    const outcome = await this.post(turn, numCtx);
    return outcome === null ? null : this.interpret(outcome, turn.maxTokens);
  }

  /** The backend's counts and timings a canary reply keeps as evidence. */
  replyMetadata(data: Readonly<Record<string, unknown>>): CanaryMetadata {
    return CHAT_PROTOCOLS[this.provider].replyMetadata(data);
  }
}

/** The Ollama backend (`/api/chat`, `/api/tags`). */
export class OllamaChatBackend extends ChatBackendBase {
  readonly provider = "ollama" as const;

  constructor(options: ChatClientOptions & { readonly ollamaUrl?: string }, role: ChatRole) {
    super(options, options.ollamaUrl ?? DEFAULT_OLLAMA_URL, role, () => "");
  }

  /** True iff /api/tags answers 200 within 3 s and lists the model (its exact name, or `<model>:latest` for a name without a tag). */
  async isAvailable(): Promise<boolean> {
    const served = await this.servedModels(3_000);
    return served.kind === "listed" && served.hasModel;
  }

  /** What GET /api/tags says about the model (see ollamaServedModels). */
  servedModels(timeoutMs = modelListTimeoutMs(this.settings.timeoutSeconds)): Promise<ServedModels> {
    return ollamaServedModels(this.endpoint.fetch, this.endpoint.baseUrl, this.settings.model, timeoutMs);
  }
}

/** The OpenAI-compatible backend (`/chat/completions`, `/models`); the API key stays private. */
export class OpenAIChatBackend extends ChatBackendBase {
  readonly provider = "openai" as const;
  /** The endpoint, key and model the server calls (openai-identity.ts) take; private, as it holds the key. */
  readonly #server: Parameters<typeof tokenizeCount>[0];

  constructor(options: ChatClientOptions & { readonly baseUrl?: string; readonly apiKey?: string }, role: ChatRole) {
    let apiKey = "";
    super(options, options.baseUrl ?? DEFAULT_OPENAI_BASE_URL, role, () => (apiKey = checkApiKey(options.apiKey)));
    const { fetch, baseUrl, timeoutSeconds } = this.endpoint;
    this.#server = Object.freeze({ fetch, baseUrl, apiKey, model: this.settings.model, timeoutMs: timeoutSeconds * 1000 });
  }

  /** The server's exact count of this chat prompt from `POST /tokenize` (see tokenizeCount). */
  tokenize(messages: ChatMessages): Promise<number | "absent" | null> {
    return tokenizeCount(this.#server, messages);
  }

  /** What the endpoint says about itself and the model (see probeOpenAIIdentity). */
  identify(): ReturnType<typeof probeOpenAIIdentity> {
    return probeOpenAIIdentity(this.#server);
  }

  /** True only when `GET <base>/models` answers 200 within 5 s and does not list models without this one. */
  isAvailable(): Promise<boolean> {
    return openAIModelAvailable(this.#server);
  }

  /** What `GET <base>/models` says about the model (see openAIServedModels). */
  servedModels(): Promise<ServedModels> {
    return openAIServedModels({ ...this.#server, timeoutMs: modelListTimeoutMs(this.settings.timeoutSeconds) });
  }
}

/** What a provider's probe and judge share as clients: the settings (copied from the backend), availability and JSON; the backend stays private (`backend`). */
export abstract class ChatClient<Backend extends OllamaChatBackend | OpenAIChatBackend> extends ChatSettings {
  readonly endpointOrigin: string;
  readonly #backend: Backend;

  protected constructor(backend: Backend) {
    super(backend.settings);
    this.#backend = backend;
    this.endpointOrigin = backend.endpointOrigin;
  }

  /** The provider's backend (holds the full URL and any key: never expose it). */
  protected get backend(): Backend {
    return this.#backend;
  }

  /** Whether the backend answers and lists the model (see the backend's isAvailable). */
  async isAvailable(): Promise<boolean> {
    return this.#backend.isAvailable();
  }

  /** What the server's model list says about this client's model; never throws. */
  servedModels(): Promise<ServedModels> {
    return this.#backend.servedModels();
  }

  /** Provider, model and endpoint origin: never the full URL or a key. */
  toJSON(): Record<string, unknown> {
    return this.#backend.describe();
  }
}
