// A real HTTP stand-in for Ollama on 127.0.0.1 (no model runs here, so every test and
// benchmark talks to this instead). It answers the four routes little-canary uses, with scripted
// chat replies, latency and faults, and records every request it sees.
//
// Usage:
//   const ollama = await startOllamaStandIn();          // default reply "Hello! How can I help?"
//   afterEach(() => ollama.close());                      // destroys hanging sockets too
//   new OllamaCanaryProbe({ ollamaUrl: ollama.url });
//   ollama.setReply("Paris is the capital of France.");  // default for every chat call
//   ollama.setReply((req) => ({ content: "..." }));      // or computed per request
//   ollama.enqueue({ fault: "hang" }, "second reply");    // FIFO, used before the default
//   ollama.chatRequests()[0].body                          // parsed JSON body of the first chat
//
// Routes:
//   POST /api/chat     -> the next reply (queue first, then the default reply / function);
//                         with rejectUnknownModels, 404 {"error":"model 'x' not found"} for a
//                         model not in the inventory, as Ollama answers
//   GET  /api/tags     -> {models:[{name, model, digest, size, ...}]} from setModels()
//   POST /api/show     -> {model_info:{"general.architecture":A, "<A>.context_length":N}, ...};
//                         404 for a model not in the inventory (exact name or "<name>:" prefix)
//   GET  /api/ps       -> {models:[{name, model, size, digest, size_vram, context_length, ...}]}
//                         for the model of the last chat call, with the context it was "loaded"
//                         with: min(num_ctx sent (default 4096), contextCap); setPs() can make
//                         it 404, drop context_length, or report a fixed (lying) value
//   GET  /api/version  -> {version:"0.0.0-stand-in"}
//   anything else      -> 404
//
// Context window, as Ollama behaves (ollama/ollama#11283, #17427): a prompt of more tokens than
// the loaded context is, with overflow "keep_half" (default), cut to its second half and answered
// 200 with prompt_eval_count = floor(context/2) + 2; with overflow "reject" it gets 400. Tokens
// are estimated as ceil(UTF-8 bytes of all messages / 4) + 8 (about 0.75 per CJK character).
//
// The canary's warm-up call (its user message is CALIBRATION_PROBE_TEXT) is answered outside the
// reply queue and is not listed by chatRequests(), so scripted replies still meet the checks
// they were written for; warmUpRequests() lists it.
//
// A canary pool's fingerprint probes (their user message starts with FINGERPRINT_PROBE_PREFIX)
// are answered outside the reply queue too, by default with a text derived from the requested
// model and the probe (so two stand-ins serving one model agree, and another model does not);
// setFingerprintReply() overrides it; fingerprintRequests() lists them, chatRequests() does not.
//
// A chat reply (OllamaReply) is one of:
//   "text"                                  content, done:true, done_reason:"stop"
//   { content?, done?, done_reason?, prompt_eval_count?, eval_count?, latencyMs?, thinking? }
//                                           done defaults true, done_reason "stop" (null is sent
//                                           as null); counts default to deterministic estimates
//                                           (prompt: ceil(code points of all messages / 4) + 8)
//   { fault: "length", content? }           done_reason "length" (output limit reached)
//   { fault: "empty" }                      content ""
//   { fault: "drop" }                       socket destroyed without an answer
//   { fault: "status", status, body? }      that status and body (body must never be echoed)
//   { fault: "garbage" }                    200 with a non-JSON body
//   { fault: "hang" }                       never answers until the client aborts or close()
//   { rawBody: <any JSON>, status? }        that value verbatim
// Any route can be given a fault with setRouteFault("/api/tags", {fault:"status", status:500}).
import { createHash } from "node:crypto";
import { CALIBRATION_PROBE_TEXT } from "../../src/canary/run-context.js";
import { FINGERPRINT_PROBE_PREFIX } from "../../src/canary/pool-identity.js";
import type { ServerResponse } from "node:http";
import { isTransportFault, sendJson, startLoopbackServer, type RecordedRequest, type TransportFault } from "./loopback-server.js";

interface OllamaChatReply {
  readonly content?: string;
  readonly done?: boolean;
  readonly done_reason?: string | null;
  readonly prompt_eval_count?: number | null;
  readonly eval_count?: number | null;
  readonly thinking?: string;
  readonly latencyMs?: number;
}

export type OllamaReply =
  | string
  | OllamaChatReply
  | { readonly fault: "length"; readonly content?: string; readonly latencyMs?: number }
  | { readonly fault: "empty"; readonly latencyMs?: number }
  | TransportFault;

type OllamaReplyFn = (request: RecordedRequest, chatIndex: number) => OllamaReply | Promise<OllamaReply>;

interface StandInModel {
  readonly name: string;
  /** Defaults to sha256(name) in hex; null omits the field (a broken inventory entry). */
  readonly digest?: string | null;
}

export interface OllamaStandInOptions {
  /** Default chat reply (or function). Default: "Hello! How can I help you today?" */
  readonly reply?: OllamaReply | OllamaReplyFn;
  /** Inventory for /api/tags and /api/show. Default: qwen2.5:1.5b and qwen3:4b. */
  readonly models?: readonly StandInModel[];
  /** Trained context length reported by /api/show. Default 32768. */
  readonly contextLength?: unknown;
  /** model_info["general.architecture"]. Default "qwen2". */
  readonly architecture?: string;
  /** Latency added to every chat reply that does not set its own latencyMs. */
  readonly latencyMs?: number;
  /** Server-side cap on the loaded context, whatever num_ctx asks for (OLLAMA_CONTEXT_LENGTH-like). */
  readonly contextCap?: number;
  /** What an over-long prompt gets: cut to its second half (default) or HTTP 400. */
  readonly overflow?: "keep_half" | "reject";
  /**
   * Answer a chat for a model not in the inventory as Ollama does: HTTP 404
   * {"error":"model '<name>' not found"} (default false: every model is answered).
   */
  readonly rejectUnknownModels?: boolean;
}

/** How /api/ps answers: normally, 404, without context_length, or with a fixed context_length. */
type PsMode = "normal" | "missing" | "no_context_length" | { readonly contextLength: number };

/** Context a request without num_ctx gets (recent Ollama defaults). */
const STAND_IN_DEFAULT_CONTEXT = 4096;

export interface OllamaStandIn {
  readonly url: string;
  readonly port: number;
  /** Every request in arrival order (all routes). */
  readonly requests: RecordedRequest[];
  /** Only the POST /api/chat requests. */
  chatRequests(): RecordedRequest[];
  /** Only the canary warm-up chat requests. */
  warmUpRequests(): RecordedRequest[];
  /** Only a canary pool's fingerprint probes. */
  fingerprintRequests(): RecordedRequest[];
  /** What fingerprint probes get (a text, or a function of the probe text); null: the default. */
  setFingerprintReply(reply: string | ((probe: string) => string) | null): void;
  setPs(mode: PsMode): void;
  setContextCap(cap: number | null, overflow?: "keep_half" | "reject"): void;
  /** Count prompt tokens with this tokenizer (null: the default bytes/4 estimate). */
  setTokenizer(tokenizer: StandInTokenizer | null): void;
  /** Highest number of chat requests that were in flight at the same time. */
  readonly maxConcurrentChats: number;
  setReply(reply: OllamaReply | OllamaReplyFn): void;
  enqueue(...replies: OllamaReply[]): void;
  setModels(models: readonly StandInModel[]): void;
  /** See OllamaStandInOptions.rejectUnknownModels. */
  setRejectUnknownModels(reject: boolean): void;
  /** null omits the context_length key; any other value (e.g. true, "32768", 0) is sent verbatim. */
  setContextLength(value: unknown): void;
  /** Replace model_info entirely (null returns to the generated one). */
  setModelInfo(info: Record<string, unknown> | null): void;
  setLatency(ms: number): void;
  /** Make a route fail (or null to restore it); for /api/chat prefer replies. */
  setRouteFault(path: string, fault: TransportFault | null): void;
  /** Requests whose connection the client closed before their answer was sent. */
  abandonedRequests(): number;
  close(): Promise<void>;
}

const DEFAULT_STAND_IN_MODELS: readonly StandInModel[] = [{ name: "qwen2.5:1.5b" }, { name: "qwen3:4b" }];

function digestOf(model: StandInModel): string | null {
  if (model.digest === null) return null;
  return model.digest ?? createHash("sha256").update(model.name, "utf8").digest("hex");
}

function messageContents(body: unknown): string[] {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.map((message) => (message as { content?: unknown } | null)?.content).filter((content): content is string => typeof content === "string");
}

/** The stand-in's token estimate of a chat prompt. */
function standInPromptTokens(body: unknown): number {
  const bytes = messageContents(body).reduce((sum, content) => sum + Buffer.byteLength(content, "utf8"), 0);
  return Math.ceil(bytes / 4) + 8;
}

/** Counts the tokens of one message's content (setTokenizer); the stand-in adds 8 per prompt. */
export type StandInTokenizer = (content: string) => number;

/**
 * A tokenizer that splits every ASCII digit into its own token and counts everything else at
 * 4 bytes per token: how tokenizers that split numbers digit by digit (the Qwen2 family does)
 * treat digit runs. Text like this costs far more tokens per byte than prose.
 */
export const digitSplittingTokenizer: StandInTokenizer = (content) => {
  const digits = content.replace(/[^0-9]/g, "").length;
  return digits + Math.ceil((Buffer.byteLength(content, "utf8") - digits) / 4);
};

function isWarmUp(body: unknown): boolean {
  const contents = messageContents(body);
  return contents[contents.length - 1] === CALIBRATION_PROBE_TEXT;
}

function isFingerprint(body: unknown): boolean {
  const contents = messageContents(body);
  return contents[contents.length - 1]?.startsWith(FINGERPRINT_PROBE_PREFIX) === true;
}

function requestedNumCtx(body: unknown): number | null {
  const value = (body as { options?: { num_ctx?: unknown } } | undefined)?.options?.num_ctx;
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

function findModel(models: readonly StandInModel[], tag: unknown): StandInModel | undefined {
  if (typeof tag !== "string") return undefined;
  // As Ollama finds a model: by its exact name, a name without a tag meaning `:latest`.
  return models.find((m) => m.name === tag || (!tag.includes(":") && m.name === `${tag}:latest`));
}

export async function startOllamaStandIn(options: OllamaStandInOptions = {}): Promise<OllamaStandIn> {
  let defaultReply: OllamaReply | OllamaReplyFn = options.reply ?? "Hello! How can I help you today?";
  const queue: OllamaReply[] = [];
  let models: readonly StandInModel[] = options.models ?? DEFAULT_STAND_IN_MODELS;
  let contextLength: unknown = options.contextLength === undefined ? 32768 : options.contextLength;
  let modelInfoOverride: Record<string, unknown> | null = null;
  const architecture = options.architecture ?? "qwen2";
  let latencyMs = options.latencyMs ?? 0;
  const routeFaults = new Map<string, TransportFault>();
  let chatIndex = 0;
  let contextCap: number | null = options.contextCap ?? null;
  let overflow: "keep_half" | "reject" = options.overflow ?? "keep_half";
  let psMode: PsMode = "normal";
  let tokenizer: StandInTokenizer | null = null;
  let loaded: { model: string; context: number } | null = null;
  let inFlight = 0;
  let maxInFlight = 0;
  let fingerprintReply: string | ((probe: string) => string) | null = null;
  let rejectUnknownModels = options.rejectUnknownModels === true;

  /** "Loads" the model with the context the request gets; returns it. */
  const load = (req: RecordedRequest): number => {
    const requested = requestedNumCtx(req.body) ?? STAND_IN_DEFAULT_CONTEXT;
    const context = contextCap === null ? requested : Math.min(requested, contextCap);
    const model = (req.body as { model?: unknown } | undefined)?.model;
    loaded = { model: typeof model === "string" ? model : "unknown", context };
    return context;
  };

  const answerChat = async (req: RecordedRequest, res: ServerResponse): Promise<void> => {
    const requested = (req.body as { model?: unknown } | undefined)?.model;
    if (rejectUnknownModels && !findModel(models, requested)) {
      return sendJson(res, 404, { error: `model '${typeof requested === "string" ? requested : ""}' not found` });
    }
    const context = load(req);
    const count = tokenizer;
    const tokens = count === null ? standInPromptTokens(req.body) : messageContents(req.body).reduce((sum, c) => sum + count(c), 0) + 8;
    if (tokens > context && overflow === "reject") {
      return sendJson(res, 400, { error: `the input length exceeds the context length (${context})` });
    }
    // Keep-half: the backend evaluates only the second half and reports that count.
    const evaluated = tokens > context ? Math.floor(context / 2) + 2 : tokens;
    if (isWarmUp(req.body)) {
      return sendJson(res, 200, {
        model: loaded?.model ?? "unknown",
        created_at: "2025-01-01T00:00:00.000Z",
        message: { role: "assistant", content: "Noted." },
        done: true,
        done_reason: "length",
        prompt_eval_count: evaluated,
        eval_count: 1,
      });
    }
    if (isFingerprint(req.body)) {
      const contents = messageContents(req.body);
      const probe = contents[contents.length - 1] as string;
      const model = loaded?.model ?? "unknown";
      const content =
        fingerprintReply === null
          ? `Stand-in answer ${createHash("sha256").update(`${model}\n${probe}`, "utf8").digest("hex").slice(0, 16)}.`
          : typeof fingerprintReply === "function"
            ? fingerprintReply(probe)
            : fingerprintReply;
      if (!(await server.sleep(latencyMs))) return;
      return sendJson(res, 200, {
        model,
        created_at: "2025-01-01T00:00:00.000Z",
        message: { role: "assistant", content },
        done: true,
        done_reason: "stop",
        prompt_eval_count: evaluated,
        eval_count: 4,
      });
    }
    const index = chatIndex++;
    const queued = queue.shift();
    const reply: OllamaReply = queued ?? (typeof defaultReply === "function" ? await defaultReply(req, index) : defaultReply);
    if (isTransportFault(reply)) {
      const withLatency = "fault" in reply && reply.fault !== "hang" && reply.latencyMs === undefined && latencyMs > 0 ? { ...reply, latencyMs } : reply;
      return server.sendFault(req, res, withLatency);
    }
    const scripted: OllamaChatReply =
      typeof reply === "string"
        ? { content: reply }
        : "fault" in reply
          ? reply.fault === "length"
            ? { content: reply.content ?? "The answer was cut", done_reason: "length", latencyMs: reply.latencyMs }
            : { content: "", latencyMs: reply.latencyMs }
          : reply;
    if (!(await server.sleep(scripted.latencyMs ?? latencyMs))) return;
    const content = scripted.content ?? "";
    const model = (req.body as { model?: unknown } | undefined)?.model;
    const message: Record<string, unknown> = { role: "assistant", content };
    if (scripted.thinking !== undefined) message["thinking"] = scripted.thinking;
    sendJson(res, 200, {
      model: typeof model === "string" ? model : "unknown",
      created_at: "2025-01-01T00:00:00.000Z",
      message,
      done: scripted.done ?? true,
      done_reason: scripted.done_reason === undefined ? "stop" : scripted.done_reason,
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: scripted.prompt_eval_count === undefined ? evaluated : scripted.prompt_eval_count,
      prompt_eval_duration: 200_000,
      eval_count: scripted.eval_count === undefined ? Math.ceil([...content].length / 4) : scripted.eval_count,
      eval_duration: 500_000,
    });
  };

  const server = await startLoopbackServer(async (req, res) => {
    const fault = routeFaults.get(req.path);
    if (fault) return server.sendFault(req, res, fault);
    const route = `${req.method} ${req.path}`;
    switch (route) {
      case "POST /api/chat":
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          return await answerChat(req, res);
        } finally {
          inFlight--;
        }
      case "GET /api/tags":
        return sendJson(res, 200, {
          models: models.map((m) => {
            const entry: Record<string, unknown> = { name: m.name, model: m.name, size: 986_061_892 };
            const digest = digestOf(m);
            if (digest !== null) entry["digest"] = digest;
            return entry;
          }),
        });
      case "POST /api/show": {
        const tag = (req.body as { model?: unknown } | undefined)?.model;
        if (!findModel(models, tag)) return sendJson(res, 404, { error: "model not found" });
        const generated: Record<string, unknown> = { "general.architecture": architecture };
        if (contextLength !== null) generated[`${architecture}.context_length`] = contextLength;
        return sendJson(res, 200, {
          modelfile: "# stand-in",
          details: { family: architecture },
          model_info: modelInfoOverride ?? generated,
        });
      }
      case "GET /api/ps": {
        if (psMode === "missing") {
          res.writeHead(404);
          res.end();
          return;
        }
        const running = loaded === null ? [] : [loaded];
        return sendJson(res, 200, {
          models: running.map((m) => {
            const known = models.find((entry) => entry.name === m.model);
            const entry: Record<string, unknown> = {
              name: m.model,
              model: m.model,
              size: 986_061_892,
              digest: known ? digestOf(known) : null,
              details: { format: "gguf", family: architecture },
              expires_at: "2099-01-01T00:00:00Z",
              size_vram: 0,
            };
            if (psMode !== "no_context_length") entry["context_length"] = typeof psMode === "object" ? psMode.contextLength : m.context;
            return entry;
          }),
        });
      }
      case "GET /api/version":
        return sendJson(res, 200, { version: "0.0.0-stand-in" });
      default:
        res.writeHead(404);
        res.end();
    }
  });

  return {
    url: server.url,
    port: server.port,
    requests: server.requests,
    abandonedRequests: () => server.abandoned(),
    chatRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/api/chat" && !isWarmUp(r.body) && !isFingerprint(r.body)),
    fingerprintRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/api/chat" && isFingerprint(r.body)),
    setFingerprintReply: (reply) => {
      fingerprintReply = reply;
    },
    warmUpRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/api/chat" && isWarmUp(r.body)),
    setPs: (mode) => {
      psMode = mode;
    },
    setContextCap: (cap, mode) => {
      contextCap = cap;
      if (mode !== undefined) overflow = mode;
    },
    setTokenizer: (next) => {
      tokenizer = next;
    },
    get maxConcurrentChats() {
      return maxInFlight;
    },
    setReply: (reply) => {
      defaultReply = reply;
    },
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setModels: (next) => {
      models = next;
    },
    setRejectUnknownModels: (reject) => {
      rejectUnknownModels = reject;
    },
    setContextLength: (value) => {
      contextLength = value;
    },
    setModelInfo: (info) => {
      modelInfoOverride = info;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    setRouteFault: (path, fault) => {
      if (fault === null) routeFaults.delete(path);
      else routeFaults.set(path, fault);
    },
    close: () => server.close(),
  };
}
