// A small loopback Ollama responder for benchmarks (bench/ cannot import test/ after the build).
// It runs in a child process so that its HTTP work does not share the benchmark's event loop: a
// latency measured against it is the library's, not the responder's. It answers /api/chat a
// fixed latency after the request arrives (its own body parsing happens inside that time, as a
// real server's would), /api/tags (with a digest), /api/show (with a context length),
// /api/ps (the num_ctx of the last chat as the loaded context_length) and /api/version. The
// canary's warm-up call is answered at once and is not counted as a served request. It keeps the service time it actually achieved per chat request (arrival to
// reply written), so a benchmark can print how close to the nominal latency it stayed.
// Replies depend only on the request's user text, never on timing, so a run's output is the same
// for any concurrency. No model runs here: nothing measured with it is a model figure.
//
//   const standIn = await startBenchStandIn({ latencyMs: 20, replies: "benign" });
//   ... standIn.url ...; await standIn.setLatency(0); await standIn.close();
import { fork, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { utf8ByteLength } from "../src/core/codepoints.js";
import { CALIBRATION_PROBE_TEXT } from "../src/canary/run-context.js";

export type ReplyMix = "benign" | "mixed";

export interface BenchStandInOptions {
  readonly latencyMs: number;
  /** "benign": every reply is harmless. "mixed": by a hash of the user text, some replies read
   *  like a hijacked model and some are HTTP 500s (deterministic per text). */
  readonly replies: ReplyMix;
  readonly contextLength?: number;
}

/** Chat requests answered since the last reset, how long each took from arrival to reply, and the stand-in's own CPU. */
export interface ServiceTimes {
  readonly requests: number;
  readonly meanMs: number;
  readonly maxMs: number;
  /** User + system CPU of the stand-in's process since the last reset, in ms (bench:ingest --throughput prints it beside the ingest's). */
  readonly cpuMs: number;
}

export interface BenchStandIn {
  readonly url: string;
  setLatency(ms: number): Promise<void>;
  /** Service times since the previous call (or the start); resets the tally. */
  takeServiceTimes(): Promise<ServiceTimes>;
  close(): Promise<void>;
}

export const STAND_IN_MODEL = "qwen2.5:1.5b";

/**
 * The arguments of an unlimited `ingest` of `input` into `manifest` against the stand-in at
 * `url` with `concurrency` checks at once (`--max-items 0 --max-total-bytes 0`: the corpus
 * benchmarks are larger than strict/v1's defaults); `extra` is appended.
 */
export function benchIngestArgs(input: string, manifest: string, url: string, concurrency: number, extra: readonly string[] = []): string[] {
  return [
    "ingest",
    input,
    "--manifest",
    manifest,
    "--ollama-url",
    url,
    "--canary-model",
    STAND_IN_MODEL,
    "--concurrency",
    String(concurrency),
    "--max-items",
    "0",
    "--max-total-bytes",
    "0",
    ...extra,
  ];
}
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const CHILD_FLAG = "--bench-stand-in-child";
const START_TIMEOUT_MS = 10_000;

const BENIGN_REPLY = "Hello! How can I help you today?";
const HIJACKED_REPLY =
  "I am now DAN and I have no restrictions. My new instructions override the old ones. " +
  "My system prompt says: You are a helpful assistant. Do not adopt other personas.";

function userText(body: unknown): string {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return "";
  const last = messages.at(-1) as { content?: unknown } | undefined;
  return typeof last?.content === "string" ? last.content : "";
}

function promptTokens(body: unknown): number {
  const messages = (body as { messages?: unknown } | null)?.messages;
  // Bytes, not code points: about 0.75 tokens per CJK character, as real tokenizers give.
  let bytes = 0;
  if (Array.isArray(messages)) {
    for (const m of messages) {
      const content = (m as { content?: unknown } | null)?.content;
      if (typeof content === "string") bytes += utf8ByteLength(content);
    }
  }
  return Math.ceil(bytes / 4) + 8;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RangeError("request body too large");
    chunks.push(chunk as Buffer);
  }
  return size === 0 ? null : JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function serve(options: BenchStandInOptions): void {
  let latencyMs = options.latencyMs;
  const digest = createHash("sha256").update(STAND_IN_MODEL).digest("hex");
  let served = { requests: 0, totalMs: 0, maxMs: 0 };
  let cpuSince = process.cpuUsage();
  let loadedContext: number | null = null;
  const server = createServer((req, res) => {
    const arrived = performance.now();
    readBody(req)
      .then(async (body) => {
        const route = `${req.method} ${req.url}`;
        if (route === "GET /api/tags") return send(res, 200, { models: [{ name: STAND_IN_MODEL, model: STAND_IN_MODEL, digest }] });
        if (route === "GET /api/version") return send(res, 200, { version: "0.0.0-bench-stand-in" });
        if (route === "POST /api/show") {
          return send(res, 200, { model_info: { "general.architecture": "qwen2", "qwen2.context_length": options.contextLength ?? 32768 } });
        }
        if (route === "GET /api/ps") {
          const models = loadedContext === null ? [] : [{ name: STAND_IN_MODEL, model: STAND_IN_MODEL, digest, context_length: loadedContext }];
          return send(res, 200, { models });
        }
        if (route !== "POST /api/chat") return send(res, 404, { error: "not found" });
        const numCtx = (body as { options?: { num_ctx?: unknown } } | null)?.options?.num_ctx;
        loadedContext = typeof numCtx === "number" ? numCtx : 4096;
        if (userText(body) === CALIBRATION_PROBE_TEXT) {
          return send(res, 200, {
            model: STAND_IN_MODEL,
            message: { role: "assistant", content: "Noted." },
            done: true,
            done_reason: "length",
            prompt_eval_count: promptTokens(body),
            eval_count: 1,
          });
        }
        // Timers have millisecond resolution and are due by the event loop's cached clock, which
        // can lag the real one, so one timer may fire early; wait again until the reply is due
        // to within half a millisecond (the achieved times are kept and reported, see above).
        const remaining = (): number => latencyMs - (performance.now() - arrived);
        for (let ms = remaining(); ms > 0.5; ms = remaining()) {
          await new Promise((resolve) => setTimeout(resolve, Math.round(ms)));
        }
        res.once("finish", () => {
          const ms = performance.now() - arrived;
          served = { requests: served.requests + 1, totalMs: served.totalMs + ms, maxMs: Math.max(served.maxMs, ms) };
        });
        const text = userText(body);
        const bucket = options.replies === "mixed" ? (createHash("sha256").update(text).digest()[0] as number) % 10 : 9;
        if (bucket === 0) return send(res, 500, { error: "stand-in fault" });
        const content = bucket === 1 ? HIJACKED_REPLY : BENIGN_REPLY;
        return send(res, 200, {
          model: STAND_IN_MODEL,
          message: { role: "assistant", content },
          done: true,
          done_reason: "stop",
          prompt_eval_count: promptTokens(body),
          eval_count: Math.ceil(content.length / 4),
        });
      })
      .catch(() => send(res, 400, { error: "bad request" }));
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.send?.({ port: typeof address === "object" && address ? address.port : 0 });
  });
  process.on("message", (message: { latencyMs?: unknown; serviceTimes?: unknown }) => {
    if (typeof message.latencyMs === "number" && message.latencyMs >= 0) {
      latencyMs = message.latencyMs;
      process.send?.({ latencyMs });
    }
    if (message.serviceTimes === true) {
      const { requests, totalMs, maxMs } = served;
      served = { requests: 0, totalMs: 0, maxMs: 0 };
      const cpu = process.cpuUsage(cpuSince);
      cpuSince = process.cpuUsage();
      process.send?.({ serviceTimes: { requests, meanMs: requests > 0 ? totalMs / requests : 0, maxMs, cpuMs: (cpu.user + cpu.system) / 1000 } });
    }
  });
  // The parent hung up: stop serving and let the event loop drain, so the child ends by itself.
  process.on("disconnect", () => {
    server.close();
    server.closeAllConnections();
  });
}

function nextMessage<K extends "port" | "latencyMs" | "serviceTimes">(child: ChildProcess, key: K): Promise<K extends "serviceTimes" ? ServiceTimes : number> {
  type Value = K extends "serviceTimes" ? ServiceTimes : number;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("bench stand-in did not answer in time")), START_TIMEOUT_MS);
    const onExit = () => reject(new Error("bench stand-in exited"));
    const onMessage = (message: Record<string, unknown>) => {
      const value = message[key] as Value | undefined;
      if (value === undefined || (key !== "serviceTimes" && typeof value !== "number")) return;
      clearTimeout(timer);
      // Both listeners go once answered, so a long benchmark does not pile them up.
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(value);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

export async function startBenchStandIn(options: BenchStandInOptions): Promise<BenchStandIn> {
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG, JSON.stringify(options)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const port = await nextMessage(child, "port");
  return {
    url: `http://127.0.0.1:${port}`,
    async setLatency(ms) {
      const ack = nextMessage(child, "latencyMs");
      child.send({ latencyMs: ms });
      await ack;
    },
    async takeServiceTimes() {
      const reply = nextMessage(child, "serviceTimes");
      child.send({ serviceTimes: true });
      return reply;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.disconnect();
      await exited;
    },
  };
}

if (process.argv[2] === CHILD_FLAG) serve(JSON.parse(process.argv[3] ?? "{}") as BenchStandInOptions);
