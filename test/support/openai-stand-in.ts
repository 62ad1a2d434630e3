// A real HTTP stand-in for an OpenAI-compatible API on 127.0.0.1 (no model runs here). Same shape as the
// Ollama stand-in: scripted replies, latency and faults, and a record of every request
// (including headers, so tests can check the Authorization header).
//
// Usage:
//   const api = await startOpenAIStandIn({ apiKey: "sk-test" });   // 401 unless that bearer key
//   new OpenAICanaryProbe({ baseUrl: api.baseUrl, apiKey: "sk-test" });
//   api.enqueue({ fault: "length" }, "plain reply");
//   await api.close();
//
// Routes (under /v1; `baseUrl` is `<url>/v1`):
//   POST /v1/chat/completions -> the next reply (queue first, then the default / function),
//                                with `system_fingerprint` when one is set
//   GET  /v1/models           -> {object:"list", data:[{id, object:"model"}]}, and vLLM's
//                                `root` and `max_model_len` on each entry when maxModelLen is set
//   POST /tokenize            -> (vLLM, at the root, only with `tokenize: true`) body {model,
//                                messages} or {model, prompt} -> {count, max_model_len, tokens};
//                                count is the same estimate the completions report as usage
//   anything else             -> 404
//
// `startVllmStandIn()` is this stand-in as vLLM answers: max_model_len 32768, /tokenize, a
// system_fingerprint, and a served name that pins a revision (`<repo>@<sha>`).
//
// A completion reply (OpenAIReply) is one of:
//   "text"                                      content with finish_reason "stop" and usage
//   { content?, finish_reason?, usage?, latencyMs? }
//                                               finish_reason undefined -> "stop", null -> the
//                                               key is omitted; usage undefined -> estimated
//   { fault: "length", content? }               finish_reason "length"
//   { fault: "empty" }                          content ""
//   { fault: "no_choices" }                     a body without `choices`
//   { fault: "drop" | "garbage" | "hang" }, { fault: "status", status, body? }, { rawBody, status? }
//
// The canary's warm-up (its last message is CALIBRATION_PROBE_TEXT) is answered outside the
// reply queue with estimated usage and is listed by warmUpRequests(), not completionRequests().
//
// Context window (setContextCap / the contextCap option): a prompt of more tokens than the cap
// gets 400 with overflow "reject" (the usual OpenAI-compatible answer, "This model's maximum
// context length is N tokens"), or with "keep_half" (an Ollama /v1 endpoint) is answered 200
// with usage.prompt_tokens = floor(cap/2) + 2, or with "keep_tail" (a server or proxy that keeps
// the last `cap` tokens whatever max_model_len it lists) is answered 200 with
// usage.prompt_tokens = cap, the count of what it kept. Without a contextCap, a maxModelLen is the cap
// and is always "reject" (vLLM refuses, never cuts). Estimated
// usage counts ceil(UTF-8 bytes of all messages / 4) + 8 prompt tokens. With `usage: false`
// (setUsage) no completion, the warm-up included, carries a `usage` object.
import type { ServerResponse } from "node:http";
import { CALIBRATION_PROBE_TEXT } from "../../src/canary/run-context.js";
import { isTransportFault, sendJson, startLoopbackServer, type RecordedRequest, type TransportFault } from "./loopback-server.js";

interface OpenAICompletionReply {
  readonly content?: string | null;
  readonly finish_reason?: string | null;
  readonly usage?: Record<string, unknown> | null;
  readonly latencyMs?: number;
}

type OpenAIReply =
  | string
  | OpenAICompletionReply
  | { readonly fault: "length"; readonly content?: string; readonly latencyMs?: number }
  | { readonly fault: "empty"; readonly latencyMs?: number }
  | { readonly fault: "no_choices"; readonly latencyMs?: number }
  | TransportFault;

/** What the stand-in does with a prompt over its context cap (see the header). */
type Overflow = "keep_half" | "keep_tail" | "reject";

type OpenAIReplyFn = (request: RecordedRequest, index: number) => OpenAIReply | Promise<OpenAIReply>;

export interface OpenAIStandInOptions {
  readonly reply?: OpenAIReply | OpenAIReplyFn;
  /** Model ids listed by /v1/models. Default: gpt-4o-mini. */
  readonly models?: readonly string[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  readonly apiKey?: string;
  readonly latencyMs?: number;
  /** Prompt tokens the server holds; more is rejected or cut (see `overflow`). Default: no cap. */
  readonly contextCap?: number;
  readonly overflow?: Overflow;
  /** Whether completions carry `usage` (default true); false answers as a server that never reports it. */
  readonly usage?: boolean;
  /** vLLM's `max_model_len`, listed by /v1/models (and a prompt over it gets 400); default: none listed. */
  readonly maxModelLen?: number | null;
  /** vLLM's `root` listed with each model (when maxModelLen is set). Default: the model id before any "@". */
  readonly root?: string;
  /** Answer POST /tokenize (vLLM); default false (404, as OpenAI and Ollama answer). */
  readonly tokenize?: boolean;
  /** `system_fingerprint` of every completion; default none. */
  readonly systemFingerprint?: string | null;
}

/** A revision-pinned served model name, as docs/vllm.md recommends. */
export const VLLM_MODEL = "Qwen/Qwen2.5-1.5B-Instruct@989aa7980e4cf806f80c7fef2b1adb7bc71aa306";

/** The canary's warm-up call: its last message is the calibration paragraph. */
function isWarmUp(body: unknown): boolean {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  return (messages[messages.length - 1] as { content?: unknown } | null)?.content === CALIBRATION_PROBE_TEXT;
}

/** The stand-in's token estimate of a chat prompt (the same rule as the Ollama stand-in). */
function promptTokens(body: unknown): number {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  const prompt = (body as { prompt?: unknown } | undefined)?.prompt;
  if (typeof prompt === "string") return Math.ceil(Buffer.byteLength(prompt, "utf8") / 4) + 8;
  if (!Array.isArray(messages)) return 8;
  let bytes = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown } | null)?.content;
    if (typeof content === "string") bytes += Buffer.byteLength(content, "utf8");
  }
  return Math.ceil(bytes / 4) + 8;
}

export interface OpenAIStandIn {
  readonly url: string;
  /** `<url>/v1`, what a client uses as its base URL. */
  readonly baseUrl: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  completionRequests(): RecordedRequest[];
  /** Only the canary warm-up requests (answered outside the queue, not in completionRequests). */
  warmUpRequests(): RecordedRequest[];
  /** POST /tokenize requests (answered or 404). */
  tokenizeRequests(): RecordedRequest[];
  setMaxModelLen(value: number | null): void;
  setTokenize(on: boolean): void;
  setSystemFingerprint(value: string | null): void;
  setReply(reply: OpenAIReply | OpenAIReplyFn): void;
  enqueue(...replies: OpenAIReply[]): void;
  setModels(models: readonly string[]): void;
  setLatency(ms: number): void;
  setContextCap(cap: number | null, overflow?: Overflow): void;
  setUsage(on: boolean): void;
  setRouteFault(path: string, fault: TransportFault | null): void;
  close(): Promise<void>;
}

export async function startOpenAIStandIn(options: OpenAIStandInOptions = {}): Promise<OpenAIStandIn> {
  let defaultReply: OpenAIReply | OpenAIReplyFn = options.reply ?? "Hello! How can I help you today?";
  const queue: OpenAIReply[] = [];
  let models: readonly string[] = options.models ?? ["gpt-4o-mini"];
  let latencyMs = options.latencyMs ?? 0;
  const routeFaults = new Map<string, TransportFault>();
  let index = 0;
  let contextCap: number | null = options.contextCap ?? null;
  let overflow: Overflow = options.overflow ?? "reject";
  let usage = options.usage !== false;
  let maxModelLen: number | null = options.maxModelLen ?? null;
  let tokenize = options.tokenize === true;
  let systemFingerprint: string | null = options.systemFingerprint ?? null;
  const fingerprinted = (body: Record<string, unknown>): Record<string, unknown> =>
    systemFingerprint === null ? body : { ...body, system_fingerprint: systemFingerprint };
  const modelEntry = (id: string): Record<string, unknown> =>
    maxModelLen === null
      ? { id, object: "model" }
      : { id, object: "model", owned_by: "vllm", root: options.root ?? id.split("@")[0], parent: null, max_model_len: maxModelLen };

  const answer = async (req: RecordedRequest, res: ServerResponse): Promise<void> => {
    const tokens = promptTokens(req.body);
    const cap = contextCap ?? maxModelLen;
    const over = cap !== null && tokens > cap;
    if (over && (overflow === "reject" || contextCap === null)) {
      return sendJson(res, 400, {
        error: { message: `This model's maximum context length is ${cap} tokens`, type: "invalid_request_error", code: "context_length_exceeded" },
      });
    }
    const evaluated = over && cap !== null ? (overflow === "keep_tail" ? cap : Math.floor(cap / 2) + 2) : tokens;
    if (isWarmUp(req.body)) {
      return sendJson(
        res,
        200,
        fingerprinted({
          id: "chatcmpl-stand-in",
          object: "chat.completion",
          model: (req.body as { model?: unknown } | undefined)?.model ?? "unknown",
          choices: [{ index: 0, message: { role: "assistant", content: "Noted." }, finish_reason: "length" }],
          ...(usage ? { usage: { prompt_tokens: evaluated, completion_tokens: 1, total_tokens: evaluated + 1 } } : {}),
        }),
      );
    }
    const queued = queue.shift();
    const reply: OpenAIReply = queued ?? (typeof defaultReply === "function" ? await defaultReply(req, index++) : defaultReply);
    if (queued !== undefined) index++;
    if (isTransportFault(reply)) {
      const withLatency = "fault" in reply && reply.fault !== "hang" && reply.latencyMs === undefined && latencyMs > 0 ? { ...reply, latencyMs } : reply;
      return server.sendFault(req, res, withLatency);
    }
    if (typeof reply === "object" && "fault" in reply && reply.fault === "no_choices") {
      if (!(await server.sleep(reply.latencyMs ?? latencyMs))) return;
      return sendJson(res, 200, { id: "chatcmpl-stand-in", object: "chat.completion" });
    }
    const scripted: OpenAICompletionReply =
      typeof reply === "string"
        ? { content: reply }
        : "fault" in reply
          ? reply.fault === "length"
            ? { content: reply.content ?? "The answer was cut", finish_reason: "length", latencyMs: reply.latencyMs }
            : { content: "", latencyMs: reply.latencyMs }
          : reply;
    if (!(await server.sleep(scripted.latencyMs ?? latencyMs))) return;
    const content = scripted.content === undefined ? "" : scripted.content;
    const choice: Record<string, unknown> = { index: 0, message: { role: "assistant", content } };
    if (scripted.finish_reason !== null) choice["finish_reason"] = scripted.finish_reason ?? "stop";
    const completionTokens = typeof content === "string" ? Math.ceil([...content].length / 4) : 0;
    const body: Record<string, unknown> = {
      id: "chatcmpl-stand-in",
      object: "chat.completion",
      model: (req.body as { model?: unknown } | undefined)?.model ?? "unknown",
      choices: [choice],
    };
    if (scripted.usage !== null && usage) {
      body["usage"] = scripted.usage ?? {
        prompt_tokens: evaluated,
        completion_tokens: completionTokens,
        total_tokens: evaluated + completionTokens,
      };
    }
    sendJson(res, 200, fingerprinted(body));
  };

  const server = await startLoopbackServer(async (req, res) => {
    const fault = routeFaults.get(req.path);
    if (fault) return server.sendFault(req, res, fault);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, { error: { message: "invalid api key", type: "invalid_request_error" } });
    }
    const route = `${req.method} ${req.path}`;
    switch (route) {
      case "POST /v1/chat/completions":
        return answer(req, res);
      case "GET /v1/models":
        return sendJson(res, 200, { object: "list", data: models.map(modelEntry) });
      case "POST /tokenize": {
        if (!tokenize) break;
        const count = promptTokens(req.body);
        return sendJson(res, 200, { count, max_model_len: maxModelLen, tokens: Array.from({ length: count }, (_, i) => i) });
      }
    }
    res.writeHead(404);
    res.end();
  });

  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    port: server.port,
    requests: server.requests,
    completionRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions" && !isWarmUp(r.body)),
    warmUpRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions" && isWarmUp(r.body)),
    tokenizeRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/tokenize"),
    setMaxModelLen: (value) => {
      maxModelLen = value;
    },
    setTokenize: (on) => {
      tokenize = on;
    },
    setSystemFingerprint: (value) => {
      systemFingerprint = value;
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
    setLatency: (ms) => {
      latencyMs = ms;
    },
    setContextCap: (cap, mode) => {
      contextCap = cap;
      if (mode !== undefined) overflow = mode;
    },
    setUsage: (on) => {
      usage = on;
    },
    setRouteFault: (path, fault) => {
      if (fault === null) routeFaults.delete(path);
      else routeFaults.set(path, fault);
    },
    close: () => server.close(),
  };
}

/** The stand-in as vLLM answers: max_model_len 32768, POST /tokenize, a fingerprint, a pinned served name. */
export function startVllmStandIn(options: OpenAIStandInOptions = {}): Promise<OpenAIStandIn> {
  return startOpenAIStandIn({ models: [VLLM_MODEL], maxModelLen: 32768, tokenize: true, systemFingerprint: "fp_stand_in_1", ...options });
}
