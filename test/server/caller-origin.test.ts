// DNS rebinding and cross-site requests: the service answers only requests whose Host names a
// loopback address with its own port, and whose Origin (if any) is its own or allow-listed.
// Requests are written on raw sockets (node:net) so Host and Origin are exactly what is sent.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { normalizeAllowedOrigin } from "../../src/server/allowed-origin.js";
import { originFormTarget } from "../../src/server/caller-origin.js";
import { createServer } from "../../src/server/create-server.js";
import { pipelineFor, rawRequest, startService, type RunningService } from "../support/server-harness.js";
import { runLocal } from "../support/run-local.js";

let ollama: OllamaStandIn;
let service: RunningService;

beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "Paris is the capital of France." });
  service = await startService(pipelineFor(ollama.url));
});
afterEach(async () => {
  await service.close();
  await ollama.close();
});

const BODY = JSON.stringify({ text: "What is the capital of France?" });

function healthRequest(headers: string[], target = "/health"): string {
  return [`GET ${target} HTTP/1.1`, ...headers, "Connection: close", "", ""].join("\r\n");
}

function checkRequest(headers: string[], body = BODY, target = "/check"): string {
  return [
    `POST ${target} HTTP/1.1`,
    ...headers,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

function expectRefusal(answer: { status: number | null; body: string }, status: number): void {
  expect(answer.status).toBe(status);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error"]);
  // Nothing of a verdict or of the health report reaches a foreign caller.
  for (const leaked of ["safe", "ollama_url", "canary_model", "mode", "queue", "endpoint_origin"]) expect(answer.body).not.toContain(leaked);
}

describe("foreign Host is refused (DNS rebinding)", () => {
  it("a rebound name in Host gets 421 from /health and /check, with no verdict and no canary call", async () => {
    const port = service.port;
    expectRefusal(await rawRequest(port, healthRequest([`Host: evil.example:${port}`])), 421);
    expectRefusal(await rawRequest(port, checkRequest([`Host: evil.example:${port}`])), 421);
    expectRefusal(await rawRequest(port, checkRequest([`Host: evil.example`])), 421);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("Host is refused with a wrong port, a non-loopback address, twice, or not at all", async () => {
    const port = service.port;
    for (const headers of [
      [`Host: 127.0.0.1:${port + 1}`],
      ["Host: 127.0.0.1"],
      [`Host: 127.0.0.2:${port}`],
      [`Host: 10.0.0.5:${port}`],
      [`Host: localhost.evil.example:${port}`],
      [`Host: 127.0.0.1:${port}`, `Host: evil.example:${port}`],
      [],
    ]) {
      expectRefusal(await rawRequest(port, healthRequest(headers)), 421);
      expectRefusal(await rawRequest(port, checkRequest(headers)), 421);
    }
    // HTTP/1.0 may omit Host; the service still needs to see its own name.
    expectRefusal(await rawRequest(port, "GET /health HTTP/1.0\r\n\r\n"), 421);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("the refusal comes before the body is read (no wait for a promised body)", async () => {
    const port = service.port;
    // The promised body never comes. A service that waited for it would answer nothing before this
    // client gives up (5 s) and a 408 at its own read deadline (10 s), never the 421: the refusal
    // itself shows it came first, with no duration to measure.
    const answer = await rawRequest(
      port,
      [`POST /check HTTP/1.1`, `Host: evil.example:${port}`, "Content-Type: application/json", "Content-Length: 5000", "", '{"text":'].join("\r\n"),
    );
    expectRefusal(answer, 421);
  });

  it("a request the HTTP parser refuses is still refused for its foreign Host", async () => {
    const answer = await rawRequest(
      service.port,
      ["POST /check HTTP/1.1", `Host: evil.example:${service.port}`, "Content-Type: application/json", "Content-Length: abc", "", ""].join("\r\n"),
    );
    expectRefusal(answer, 421);
  });

  it("loopback names with the bound port are answered", async () => {
    const port = service.port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`]) {
      const health = await rawRequest(port, healthRequest([`Host: ${host}`]));
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ mode: "advisory", ready: true });
      const check = await rawRequest(port, checkRequest([`Host: ${host}`]));
      expect(check.status).toBe(200);
      expect(JSON.parse(check.body)).toMatchObject({ safe: true, canary_status: "exercised" });
    }
  });
});

describe("foreign Origin is refused", () => {
  it("a foreign Origin gets 403 from /health and /check even with a loopback Host", async () => {
    const port = service.port;
    const host = `Host: 127.0.0.1:${port}`;
    for (const origin of ["http://evil.example", `http://evil.example:${port}`, "null", "https://127.0.0.1", `http://127.0.0.1:${port + 1}`]) {
      expectRefusal(await rawRequest(port, healthRequest([host, `Origin: ${origin}`])), 403);
      expectRefusal(await rawRequest(port, checkRequest([host, `Origin: ${origin}`])), 403);
    }
    // Two Origin headers are never resolved in the caller's favour.
    expectRefusal(await rawRequest(port, healthRequest([host, `Origin: http://127.0.0.1:${port}`, "Origin: http://evil.example"])), 403);
    // A preflight from a foreign origin gets nothing that would let the browser go on.
    const preflight = await rawRequest(
      port,
      ["OPTIONS /check HTTP/1.1", host, "Origin: http://evil.example", "Access-Control-Request-Method: POST", "Connection: close", "", ""].join("\r\n"),
    );
    expect(preflight.status).toBe(403);
    expect(preflight.headers.has("access-control-allow-origin")).toBe(false);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("the service's own loopback origin is answered", async () => {
    const port = service.port;
    const answer = await rawRequest(port, checkRequest([`Host: localhost:${port}`, `Origin: http://localhost:${port}`]));
    expect(answer.status).toBe(200);
    expect(answer.headers.has("access-control-allow-origin")).toBe(false);
  });

  it("an allow-listed origin is answered with CORS headers and a preflight; others stay refused", async () => {
    const allowed = await startService(pipelineFor(ollama.url), { allowOrigins: ["http://LOCALHOST:3000/"] });
    try {
      const port = allowed.port;
      const host = `Host: 127.0.0.1:${port}`;
      const preflight = await rawRequest(
        port,
        [
          "OPTIONS /check HTTP/1.1",
          host,
          "Origin: http://localhost:3000",
          "Access-Control-Request-Method: POST",
          "Access-Control-Request-Headers: content-type",
          "Access-Control-Request-Private-Network: true",
          "Connection: close",
          "",
          "",
        ].join("\r\n"),
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
      expect(preflight.headers.get("access-control-allow-methods")).toBe("POST");
      expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type");
      expect(preflight.headers.get("access-control-allow-private-network")).toBe("true");
      const check = await rawRequest(port, checkRequest([host, "Origin: http://localhost:3000"]));
      expect(check.status).toBe(200);
      expect(check.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
      expect(check.headers.get("vary")).toBe("Origin");
      expect(JSON.parse(check.body)).toMatchObject({ safe: true });
      expectRefusal(await rawRequest(port, checkRequest([host, "Origin: http://localhost:3001"])), 403);
      // The allow-list admits an origin, never a foreign Host.
      expectRefusal(await rawRequest(port, checkRequest([`Host: evil.example:${port}`, "Origin: http://localhost:3000"])), 421);
    } finally {
      await allowed.close();
    }
  });

  it("allow-list entries must be plain http(s) origins", () => {
    expect(normalizeAllowedOrigin("https://App.Example.com:443")).toBe("https://app.example.com");
    expect(normalizeAllowedOrigin("http://localhost:3000/")).toBe("http://localhost:3000");
    for (const bad of ["localhost:3000", "http://localhost:3000/app", "http://u:p@localhost", "http://x/?q", "file:///tmp/x", "null", "*", ""]) {
      expect(normalizeAllowedOrigin(bad)).toBeNull();
    }
    expect(() => createServer(null, { allowOrigins: ["*"] })).toThrow(RangeError);
  });

  it("serve --allow-origin admits that origin and refuses a malformed value with exit 2", async () => {
    const bad = runLocal(["serve", "--port", "0", "--no-canary", "--allow-origin", "http://localhost:3000/app"]);
    expect(await bad.done).toBe(2);
    expect(bad.stderr.text).toContain("--allow-origin");
    const run = runLocal(["serve", "--port", "0", "--no-canary", "--allow-origin", "http://localhost:3000", "--allow-origin", "https://tool.example"]);
    const line = await run.stderr.waitFor(/on http:\/\/127\.0\.0\.1:(\d+)/);
    const port = Number(line[1]);
    expect(run.stderr.text).toContain("Allowed origins: http://localhost:3000, https://tool.example");
    const host = `Host: 127.0.0.1:${port}`;
    expect((await rawRequest(port, checkRequest([host, "Origin: https://tool.example"]))).status).toBe(200);
    expect((await rawRequest(port, checkRequest([host, "Origin: http://evil.example"]))).status).toBe(403);
    expect((await rawRequest(port, checkRequest([`Host: evil.example:${port}`]))).status).toBe(421);
    run.signal("SIGINT");
    expect(await run.done).toBe(0);
  });
});

describe("absolute-form request targets (RFC 9112 §3.2.2)", () => {
  it("a target naming this service by a loopback name and its port is answered as its path", async () => {
    const port = service.port;
    const host = `Host: 127.0.0.1:${port}`;
    for (const authority of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const health = await rawRequest(port, healthRequest([host], `http://${authority}/health`));
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ mode: "advisory", ready: true });
    }
    const ready = await rawRequest(port, healthRequest([host], `HTTP://localhost:${port}/ready`));
    expect(ready.status).toBe(200);
    const check = await rawRequest(port, checkRequest([host], BODY, `http://127.0.0.1:${port}/check`));
    expect(check.status).toBe(200);
    expect(JSON.parse(check.body)).toMatchObject({ safe: true, canary_status: "exercised" });
    // The path is then routed as any other: a query or an unknown path is still 404.
    expect((await rawRequest(port, healthRequest([host], `http://127.0.0.1:${port}/health?x=1`))).status).toBe(404);
    expect((await rawRequest(port, healthRequest([host], `http://127.0.0.1:${port}`))).status).toBe(404);
  });

  it("a target naming any other server is refused with 400, never forwarded and never checked", async () => {
    const port = service.port;
    const host = `Host: 127.0.0.1:${port}`;
    const others = [
      "http://evil.example/health",
      `http://evil.example:${port}/health`,
      `http://127.0.0.1:${port + 1}/health`,
      `http://127.0.0.2:${port}/health`,
      "http://127.0.0.1/health",
      `https://127.0.0.1:${port}/health`,
      `http://user@127.0.0.1:${port}/health`,
      `ftp://127.0.0.1:${port}/health`,
      `${ollama.url}/api/tags`,
    ];
    for (const target of others) {
      const answer = await rawRequest(port, healthRequest([host], target));
      expectRefusal(answer, 400);
      expect(JSON.parse(answer.body)).toEqual({ error: "request target names another server: this service is not a proxy" });
      expectRefusal(await rawRequest(port, checkRequest([host], BODY, target.replace(/\/health$/, "/check"))), 400);
    }
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("the Host and Origin rules still come first for an absolute-form target", async () => {
    const port = service.port;
    const own = `http://127.0.0.1:${port}/health`;
    expectRefusal(await rawRequest(port, healthRequest([`Host: evil.example:${port}`], own)), 421);
    expectRefusal(await rawRequest(port, healthRequest([], own)), 421);
    expectRefusal(await rawRequest(port, healthRequest([`Host: 127.0.0.1:${port}`, "Origin: http://evil.example"], own)), 403);
    expectRefusal(await rawRequest(port, healthRequest([`Host: evil.example`], "http://evil.example/health")), 421);
  });

  it("originFormTarget keeps origin-form targets and resolves only this service's own authority", () => {
    expect(originFormTarget("/health", 8080)).toBe("/health");
    expect(originFormTarget("*", 8080)).toBe("*");
    expect(originFormTarget("http://localhost:8080/check", 8080)).toBe("/check");
    expect(originFormTarget("http://[::1]:8080/ready?x", 8080)).toBe("/ready?x");
    expect(originFormTarget("http://127.0.0.1:8080", 8080)).toBe("/");
    // No port only on port 80, as for Host.
    expect(originFormTarget("http://127.0.0.1/health", 80)).toBe("/health");
    expect(originFormTarget("http://127.0.0.1/health", 8080)).toBeNull();
    expect(originFormTarget("http://127.0.0.1:8080@evil.example/health", 8080)).toBeNull();
    expect(originFormTarget("mailto:x@127.0.0.1", 8080)).toBeNull();
  });
});
