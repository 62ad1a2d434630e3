// A real HTTP stand-in for Ollama on 127.0.0.1 (decision 9: no model runs here, so every test and
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
//   POST /api/chat     -> the next reply (queue first, then the default reply / function)
//   GET  /api/tags     -> {models:[{name, model, digest, size, ...}]} from setModels()
//   POST /api/show     -> {model_info:{"general.architecture":A, "<A>.context_length":N}, ...};
//                         404 for a model not in the inventory (exact name or "<name>:" prefix)
//   GET  /api/version  -> {version:"0.0.0-stand-in"}
//   anything else      -> 404
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
import type { ServerResponse } from "node:http";
import {
  isTransportFault,
  sendJson,
  startLoopbackServer,
  type RecordedRequest,
  type TransportFault,
} from "./_loopback-server.js";

export type { RecordedRequest, TransportFault } from "./_loopback-server.js";

export interface OllamaChatReply {
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

export type OllamaReplyFn = (request: RecordedRequest, chatIndex: number) => OllamaReply | Promise<OllamaReply>;

export interface StandInModel {
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
}

export interface OllamaStandIn {
  readonly url: string;
  readonly port: number;
  /** Every request in arrival order (all routes). */
  readonly requests: RecordedRequest[];
  /** Only the POST /api/chat requests. */
  chatRequests(): RecordedRequest[];
  /** Highest number of chat requests that were in flight at the same time. */
  readonly maxConcurrentChats: number;
  setReply(reply: OllamaReply | OllamaReplyFn): void;
  enqueue(...replies: OllamaReply[]): void;
  setModels(models: readonly StandInModel[]): void;
  /** null omits the context_length key; any other value (e.g. true, "32768", 0) is sent verbatim. */
  setContextLength(value: unknown): void;
  /** Replace model_info entirely (null returns to the generated one). */
  setModelInfo(info: Record<string, unknown> | null): void;
  setLatency(ms: number): void;
  /** Make a route fail (or null to restore it); for /api/chat prefer replies. */
  setRouteFault(path: string, fault: TransportFault | null): void;
  close(): Promise<void>;
}

export const DEFAULT_STAND_IN_MODELS: readonly StandInModel[] = [{ name: "qwen2.5:1.5b" }, { name: "qwen3:4b" }];

function digestOf(model: StandInModel): string | null {
  if (model.digest === null) return null;
  return model.digest ?? createHash("sha256").update(model.name, "utf8").digest("hex");
}

function messagesCodePoints(body: unknown): number {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return 0;
  let total = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (typeof content === "string") total += [...content].length;
  }
  return total;
}

function findModel(models: readonly StandInModel[], tag: unknown): StandInModel | undefined {
  if (typeof tag !== "string") return undefined;
  return models.find((m) => m.name === tag || m.name.startsWith(`${tag}:`));
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
  let inFlight = 0;
  let maxInFlight = 0;

  const answerChat = async (req: RecordedRequest, res: ServerResponse): Promise<void> => {
    const index = chatIndex++;
    const queued = queue.shift();
    const reply: OllamaReply =
      queued ?? (typeof defaultReply === "function" ? await defaultReply(req, index) : defaultReply);
    if (isTransportFault(reply)) {
      const withLatency =
        "fault" in reply && reply.fault !== "hang" && reply.latencyMs === undefined && latencyMs > 0
          ? { ...reply, latencyMs }
          : reply;
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
      prompt_eval_count:
        scripted.prompt_eval_count === undefined
          ? Math.ceil(messagesCodePoints(req.body) / 4) + 8
          : scripted.prompt_eval_count,
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
    chatRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/api/chat"),
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

/** Short alias used in the brief and by other helpers. */
export type StandIn = OllamaStandIn;
