import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { endpointClass, endpointOrigin, serviceRequestTarget, validateServiceUrl } from "../../src/canary/endpoint.js";

describe("endpointOrigin", () => {
  it("keeps only the lowercase scheme, host and port", () => {
    expect(endpointOrigin("http://user:secret@Example.TEST:11434/path?token=secret#frag")).toBe("http://example.test:11434");
    expect(endpointOrigin("HTTPS://API.openai.com/v1")).toBe("https://api.openai.com");
  });

  it("brackets IPv6 hosts", () => {
    expect(endpointOrigin("http://[::1]:11434/")).toBe("http://[::1]:11434");
  });

  it("reports unparseable, non-http and over-long endpoints as invalid", () => {
    expect(endpointOrigin("not-a-url")).toBe("<invalid endpoint>");
    expect(endpointOrigin("ftp://127.0.0.1")).toBe("<invalid endpoint>");
    expect(endpointOrigin(`http://${"a".repeat(250)}.test`)).toBe("<invalid endpoint>");
    expect(endpointOrigin(42)).toBe("<invalid endpoint>");
  });
});

describe("endpointClass", () => {
  it("classifies localhost, all of 127/8 and ::1 as loopback", () => {
    for (const url of ["http://localhost:11434", "http://127.0.0.1:11434", "http://127.0.0.2", "http://[::1]:1"]) {
      expect(endpointClass(url)).toBe("loopback");
    }
  });

  it("classifies other hosts as remote and garbage as invalid", () => {
    expect(endpointClass("http://user:secret@example.test:11434/path?token=secret")).toBe("remote");
    expect(endpointClass("http://192.0.2.10:11434")).toBe("remote");
    expect(endpointClass("http://128.0.0.1")).toBe("remote");
    expect(endpointClass("not-a-url")).toBe("invalid");
  });
});

describe("validateServiceUrl", () => {
  it("returns the normalised origin of an http(s) origin", () => {
    expect(validateServiceUrl("http://127.0.0.1:11434/", "--ollama-url")).toBe("http://127.0.0.1:11434");
    expect(validateServiceUrl("https://Example.test", "--ollama-url")).toBe("https://example.test");
  });

  it.each([
    ["not-a-url", "must be an http or https URL"],
    ["ftp://127.0.0.1", "must be an http or https URL"],
    ["http://127.0.0.1:99999", "a port, if one is given, from 1 to 65535"],
    ["http://127.0.0.1:0", "a port, if one is given, from 1 to 65535"],
    ["http://user:secret@127.0.0.1:11434", "must not contain user info"],
    ["http://@127.0.0.1:11434", "must not contain user info"],
    ["http://127.0.0.1:11434/?token=secret", "must not contain a query or fragment"],
    ["http://127.0.0.1:11434/?", "must not contain a query or fragment"],
    ["http://127.0.0.1:11434/#secret", "must not contain a query or fragment"],
    ["http://127.0.0.1:11434/secret-path", "must be an origin without a path"],
  ])("refuses %s without echoing it", (url, message) => {
    let caught: unknown;
    try {
      validateServiceUrl(url, "--ollama-url");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    const text = (caught as UsageError).message;
    expect(text).toContain("--ollama-url");
    expect(text).toContain(message);
    expect(text).not.toContain("secret");
    expect((caught as UsageError).code).toBe("usage");
  });
});

describe("serviceRequestTarget", () => {
  it("joins the API path after a stripped trailing slash and keeps the base path", () => {
    expect(serviceRequestTarget("http://127.0.0.1:11434/", "/api/chat")?.url).toBe("http://127.0.0.1:11434/api/chat");
    expect(serviceRequestTarget("https://api.openai.com/v1/", "/chat/completions")?.url).toBe("https://api.openai.com/v1/chat/completions");
  });

  it("moves userinfo into a Basic header so it is never part of the URL", () => {
    const target = serviceRequestTarget("http://user:secret@127.0.0.1:1/", "/api/tags");
    expect(target?.url).toBe("http://127.0.0.1:1/api/tags");
    expect(target?.authorization).toBe(`Basic ${Buffer.from("user:secret").toString("base64")}`);
  });
});
