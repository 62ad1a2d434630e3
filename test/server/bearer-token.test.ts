// `serve --token-file` / `createServer({ token })`: the POST routes need `Authorization: Bearer
// <token>`, answered 401 with a `WWW-Authenticate: Bearer` challenge without it or with another
// one, before a body byte is read; the probes stay open; the token never reaches a log line, an
// answer or an error message; the token file is refused when it is empty, unreadable, or readable
// by others.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tokenProblem } from "../../src/core/token-file.js";
import { authorize, bearerToken, readServeToken, UNAUTHORIZED } from "../../src/server/bearer-token.js";
import { runService } from "../../src/server/run-service.js";
import { createServer } from "../../src/server/create-server.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { pipelineFor, postJson, rawRequest, startService, type RunningService } from "../support/server-harness.js";

const TOKEN = "s3cret-token-0123456789-abcdef";
let ollama: OllamaStandIn;
let dir: string;
const services: RunningService[] = [];

beforeAll(async () => {
  ollama = await startOllamaStandIn({ reply: "Paris is the capital of France." });
  dir = await mkdtemp(join(tmpdir(), "lc-token-"));
});
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});
afterAll(async () => {
  await ollama.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(): Promise<RunningService> {
  const service = await startService(pipelineFor(ollama.url), { token: TOKEN, accessLog: () => {} });
  services.push(service);
  return service;
}

const screen = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${url}/screen`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ items: ["hello"] }) });

describe("a service started with a token", () => {
  it("answers /check and /screen 401 with a Bearer challenge without an Authorization header, and never calls the pipeline", async () => {
    const service = await serve();
    const calls = ollama.requests.length;
    for (const response of [await postJson(service.url, { text: "hello" }), await screen(service.url)]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="little-canary"');
      expect(await response.json()).toEqual({ error: "unauthorized: send Authorization: Bearer <token>" });
    }
    expect(ollama.requests.length).toBe(calls);
  });

  it.each([
    ["a wrong token", `Bearer ${TOKEN}x`],
    ["a prefix of the token", `Bearer ${TOKEN.slice(0, 20)}`],
    ["the token under another scheme", `Basic ${TOKEN}`],
    ["an empty bearer", "Bearer "],
  ])("answers 401 for %s, echoing nothing of it", async (_label, authorization) => {
    const service = await serve();
    const response = await postJson(service.url, { text: "hello" }, { authorization });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="little-canary"/);
    const text = await response.text();
    expect(text).not.toContain(TOKEN.slice(0, 8));
  });

  it("refuses two Authorization headers even when one carries the token", async () => {
    const service = await serve();
    const body = JSON.stringify({ text: "hello" });
    const answer = await rawRequest(
      service.port,
      `POST /check HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\nAuthorization: Bearer nope\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("answers a request the HTTP parser refused with 401 when it lacks the token (the ladder's order holds)", async () => {
    const service = await serve();
    const answer = await rawRequest(
      service.port,
      `POST /check HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n`,
    );
    expect(answer.status).toBe(401);
    const authorized = await rawRequest(
      service.port,
      `POST /check HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: abc\r\n\r\n`,
    );
    expect(authorized.status).toBe(400);
  });

  it("screens with the token (scheme case-insensitive), and keeps /health and /ready open for probes", async () => {
    const service = await serve();
    const ok = await postJson(service.url, { text: "What is the capital of France?" }, { authorization: `bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ safe: true });
    expect((await screen(service.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
  });

  it("lets an allowed page's preflight ask for the Authorization header, without a token (browsers send none on it)", async () => {
    const service = await startService(pipelineFor(ollama.url), { token: TOKEN, allowOrigins: ["http://localhost:3000"] });
    services.push(service);
    const preflight = await fetch(`${service.url}/screen`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:3000", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type, authorization");
  });

  it("never writes the token to the log, the access log or an answer", async () => {
    const entries: string[] = [];
    const service = await startService(pipelineFor(ollama.url), { token: TOKEN, accessLog: (entry) => entries.push(JSON.stringify(entry)) });
    services.push(service);
    await postJson(service.url, { text: "hello" }, { authorization: `Bearer ${TOKEN}` });
    await postJson(service.url, { text: "hello" }, { authorization: `Bearer ${TOKEN}-wrong` });
    const health = await (await fetch(`${service.url}/health`)).text();
    await service.close();
    const everything = [...service.logs.map((l) => l.message), ...entries, health].join("\n");
    expect(everything).not.toContain(TOKEN);
    expect(entries.map((e) => JSON.parse(e).status)).toEqual([200, 401, 200]);
  });

  it("runService logs that a token is required, never the token", async () => {
    const log: string[] = [];
    let stop: () => void = () => {};
    const done = runService({
      pipeline: { ollamaUrl: ollama.url, canaryTimeout: 5 },
      service: { maxConcurrent: 1, maxQueue: 4, readTimeoutMs: 5000, maxConnections: 16, token: TOKEN },
      port: 0,
      log: (level, message) => log.push(`${level} ${message}`),
      stop: new Promise<void>((resolve) => (stop = resolve)),
      force: new Promise(() => {}),
    });
    await expect.poll(() => log.some((line) => line.includes("Port:"))).toBe(true);
    stop();
    await done;
    expect(log).toContain("INFO    Bearer token: required on POST /check and POST /screen");
    expect(log.join("\n")).not.toContain(TOKEN);
  });
});

describe("the comparison", () => {
  it("hashes both sides to equal-length digests, so any guess length compares without throwing", () => {
    const expected = bearerToken(TOKEN);
    expect(expected.digest.byteLength).toBe(32);
    expect(authorize(expected, [`Bearer ${TOKEN}`])).toBeNull();
    expect(authorize(expected, ["Bearer x"])).toBe(UNAUTHORIZED.wrong);
    expect(authorize(expected, [`Bearer ${"y".repeat(4000)}`])).toBe(UNAUTHORIZED.wrong);
    expect(authorize(expected, [])).toBe(UNAUTHORIZED.missing);
  });

  it("refuses weak or unsendable tokens, naming the rule and never the token", () => {
    expect(tokenProblem("")).toBe("the token is empty");
    expect(tokenProblem("short")).toBe("the token must be at least 16 characters");
    expect(tokenProblem("has a space in it!!")).toBe("the token must be visible ASCII characters without spaces");
    expect(() => createServer(null, { token: "tooshort" })).toThrow("token refused: the token must be at least 16 characters");
    try {
      createServer(null, { token: "tooshort" });
    } catch (error) {
      expect(String(error)).not.toContain("tooshort");
    }
  });
});

describe("--token-file", () => {
  const file = async (name: string, content: string | Buffer, mode = 0o600): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, content);
    await chmod(path, mode);
    return path;
  };

  it("reads the token trimmed of surrounding whitespace", async () => {
    expect(await readServeToken(await file("ok", `${TOKEN}\n`))).toBe(TOKEN);
  });

  it.each([
    ["an empty file", "", 0o600, "the token is empty"],
    ["whitespace only", " \n\t\n", 0o600, "the token is empty"],
    ["a short token", "abc\n", 0o600, "at least 16 characters"],
    ["a file others may read", TOKEN, 0o644, "readable or writable by group or others (chmod 600 it)"],
    ["a file its group may read", TOKEN, 0o640, "readable or writable by group or others"],
    ["not UTF-8", Buffer.from([0xff, 0xfe, 0x41]), 0o600, "not UTF-8 text"],
    ["too large", "a".repeat(4096), 0o600, "larger than"],
  ])("refuses %s with a UsageError that names the rule, never the content", async (name, content, mode, why) => {
    const path = await file(name.replaceAll(" ", "-"), content, mode);
    const error = await readServeToken(path).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "UsageError", code: "usage" });
    expect((error as Error).message).toContain(why);
    if (typeof content === "string" && content.trim() !== "") expect((error as Error).message).not.toContain(content.trim().slice(0, 8));
  });

  it("refuses a missing file and a directory", async () => {
    await expect(readServeToken(join(dir, "absent"))).rejects.toThrow("cannot read file (not_found)");
    await expect(readServeToken(dir)).rejects.toThrow(/not a regular file|readable or writable/);
  });

  it("does not check permission bits on Windows, where there are none", async () => {
    expect(await readServeToken(await file("win", TOKEN, 0o644), "win32")).toBe(TOKEN);
  });
});
