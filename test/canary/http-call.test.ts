import { describe, expect, it } from "vitest";
import { errorClassName } from "../../src/core/errors.js";
import { formatSeconds, httpCall, networkFailureCause } from "../../src/canary/http-call.js";
import { unreachableFix, unreachableMessage } from "../../src/canary/served-models.js";

describe("formatSeconds", () => {
  it.each([
    [10, "10.0"],
    [45, "45.0"],
    [600, "600.0"],
    [0.5, "0.5"],
    [0.2, "0.2"],
    [1.25, "1.25"],
    [1e-7, "1e-07"],
    [1.5e-7, "1.5e-07"],
    [1e16, "1e+16"],
    [123456789012345.6, "123456789012345.6"],
  ])("prints %s seconds as %s, like a Python float", (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });
});

describe("errorClassName", () => {
  it("gives the class name only, never the message", () => {
    class RuntimeError extends Error {}
    expect(errorClassName(new RuntimeError("secret"))).toBe("RuntimeError");
    expect(errorClassName("a thrown string")).toBe("Error");
    expect(errorClassName(Object.create(null))).toBe("Error");
  });
});

describe("ports fetch refuses to use", () => {
  it("a blocked port (9) is reported as unavailable with that cause, not as an internal exception", async () => {
    const outcome = await httpCall(fetch, "http://127.0.0.1:9/api/tags", { method: "GET", timeoutMs: 2000, maxBodyBytes: 1024 });
    expect(outcome).toEqual({ kind: "unavailable", cause: "a port fetch never connects to" });
  });

  it("a blocked port's fetch error names that cause wherever a failure is explained (a model download too)", async () => {
    const error = await fetch("http://127.0.0.1:1/x.gguf").catch((e: unknown) => e);
    expect(networkFailureCause(error)).toBe("a port fetch never connects to");
    expect(networkFailureCause(new TypeError("fetch failed"))).toBeNull();
  });

  it("the fix for a blocked port is another port, for any other cause the server started or its URL given", () => {
    expect(unreachableMessage("ollama", "http://127.0.0.1:9", "a port fetch never connects to")).toBe(
      "canary at http://127.0.0.1:9 is not reachable (a port fetch never connects to); fix: serve the canary on another port (Ollama's own is 11434) and pass it with --ollama-url",
    );
    expect(unreachableFix("openai", "a port fetch never connects to")).toMatch(/another port .* --base-url$/);
    expect(unreachableFix("ollama", "connection refused")).toBe("fix: start it (ollama serve) or pass --ollama-url");
    expect(unreachableFix("openai", null)).toBe("fix: start the server or pass --base-url");
  });
});

describe("a TLS handshake that fails", () => {
  it("an https:// URL at a plain-HTTP server is unavailable with the cause 'TLS failure', not a reply that could not be used", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((_request, response) => response.end("{}"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const { port } = server.address() as { port: number };
      const outcome = await httpCall(fetch, `https://127.0.0.1:${port}/api/tags`, { method: "GET", timeoutMs: 5000, maxBodyBytes: 1024 });
      expect(outcome).toEqual({ kind: "unavailable", cause: "TLS failure" });
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it("the fix for a TLS failure is the URL's scheme or the certificate's trust, not starting the server", () => {
    expect(unreachableFix("ollama", "TLS failure")).toBe(
      "fix: use http:// in --ollama-url if the server speaks plain HTTP (Ollama does), or make Node trust its certificate (NODE_EXTRA_CA_CERTS)",
    );
    expect(unreachableFix("openai", "TLS failure", true)).toContain("--canary-endpoint");
  });
});
