// A tiny loopback Ollama responder for the crash bench (bench/ cannot import test/ after the
// build). It answers the three routes an ingest run needs — /api/tags (inventory with a digest),
// /api/show (a trained context length) and /api/chat (one harmless reply) — on 127.0.0.1 only.
// Decision 9: it stands in for a model so runs complete; nothing it answers is a model figure.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const CRASH_CANARY_MODEL = "qwen2.5:1.5b";
const REPLY_PREFIX = "Summary: ";
const MAX_BODY_BYTES = 1024 * 1024;

export interface CrashCanary {
  readonly url: string;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  }
}

/** A reply that stays on the user's topic, so the analyzer sees no discontinuity. */
function replyFor(body: unknown): string {
  const messages = (body as { messages?: unknown } | null)?.messages;
  const last = Array.isArray(messages) ? (messages.at(-1) as { content?: unknown } | undefined) : undefined;
  const text = typeof last?.content === "string" ? last.content : "";
  return REPLY_PREFIX + [...text].slice(0, 200).join("");
}

function promptChars(body: unknown): number {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return 0;
  return messages.reduce((sum: number, m) => sum + [...String((m as { content?: unknown } | null)?.content ?? "")].length, 0);
}

export async function startCrashCanary(): Promise<CrashCanary> {
  const digest = createHash("sha256").update(CRASH_CANARY_MODEL).digest("hex");
  const server = createServer((req, res) => {
    void (async () => {
      const body = req.method === "POST" ? await readBody(req) : null;
      const route = `${req.method} ${req.url}`;
      if (route === "GET /api/tags") {
        return sendJson(res, 200, { models: [{ name: CRASH_CANARY_MODEL, model: CRASH_CANARY_MODEL, digest, size: 986_061_892 }] });
      }
      if (route === "POST /api/show") {
        return sendJson(res, 200, { model_info: { "general.architecture": "qwen2", "qwen2.context_length": 32768 } });
      }
      if (route === "POST /api/chat") {
        const reply = replyFor(body);
        return sendJson(res, 200, {
          model: CRASH_CANARY_MODEL,
          message: { role: "assistant", content: reply },
          done: true,
          done_reason: "stop",
          prompt_eval_count: Math.ceil(promptChars(body) / 4) + 8,
          eval_count: Math.ceil(reply.length / 4),
        });
      }
      res.writeHead(404);
      res.end();
    })().catch(() => {
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
