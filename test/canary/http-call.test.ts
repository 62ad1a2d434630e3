import { describe, expect, it } from "vitest";
import { errorClassName } from "../../src/core/errors.js";
import { formatSeconds, httpCall } from "../../src/canary/http-call.js";

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
  it("a blocked port (9) is reported as unavailable, not as an internal exception", async () => {
    const outcome = await httpCall(fetch, "http://127.0.0.1:9/api/tags", { method: "GET", timeoutMs: 2000, maxBodyBytes: 1024 });
    expect(outcome.kind).toBe("unavailable");
  });
});
