// Timeouts longer than Node's timers hold (2^31 - 1 ms, about 24.8 days) are refused wherever a
// caller can set one: such a delay would fire after 1 ms, and every canary call would time out.
import { describe, expect, it } from "vitest";
import { ConfigError, UsageError } from "../../src/core/errors.js";
import { MAX_TIMEOUT_SECONDS, parseTimeoutFlag, resolveCanaryTimeout } from "../../src/canary/timeout.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { createServer } from "../../src/server/create-server.js";

describe("timeouts a timer cannot hold are refused", () => {
  it("the ceiling is the longest whole number of seconds within 2^31 - 1 ms", () => {
    expect(MAX_TIMEOUT_SECONDS).toBe(2_147_483);
    expect(MAX_TIMEOUT_SECONDS * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
    expect((MAX_TIMEOUT_SECONDS + 1) * 1000).toBeGreaterThan(2 ** 31 - 1);
  });

  it("--timeout: the ceiling is accepted, one second more (or a huge number) is a usage error naming the ceiling", () => {
    expect(parseTimeoutFlag("2147483")).toBe(2_147_483);
    for (const raw of ["2147484", "3000000", "99999999999", "1e12"]) {
      expect(() => parseTimeoutFlag(raw)).toThrow(UsageError);
      expect(() => parseTimeoutFlag(raw)).toThrow("invalid timeout: must be a finite positive number of seconds, at most 2147483 (about 24.8 days)");
    }
  });

  it("LITTLE_CANARY_TIMEOUT past the ceiling is a configuration error naming the variable", () => {
    expect(resolveCanaryTimeout(undefined, { LITTLE_CANARY_TIMEOUT: "2147483" })).toBe(2_147_483);
    expect(() => resolveCanaryTimeout(undefined, { LITTLE_CANARY_TIMEOUT: "2147484" })).toThrow(ConfigError);
    expect(() => resolveCanaryTimeout(undefined, { LITTLE_CANARY_TIMEOUT: "2147484" })).toThrow(/^LITTLE_CANARY_TIMEOUT must be .* at most 2147483/);
  });

  it("the library's canaryTimeout and judgeTimeout past the ceiling are refused at construction", () => {
    expect(() => new SecurityPipeline({ canaryTimeout: 2_147_484 })).toThrow(UsageError);
    expect(() => new SecurityPipeline({ canaryTimeout: 2_147_484 })).toThrow(
      "canaryTimeout must be a finite number of seconds greater than 0 and at most 2147483",
    );
    expect(() => new SecurityPipeline({ judgeTimeout: 1e10 })).toThrow("judgeTimeout must be");
    expect(new SecurityPipeline({ canaryTimeout: 2_147_483, enableCanary: false }).describe().canaryTimeout).toBeNull();
  });

  it("the service's read, header and keep-alive deadlines past 2^31 - 1 ms are refused", () => {
    expect(() => createServer(null, { readTimeoutMs: 2 ** 31 })).toThrow("readTimeoutMs must be at most 2147483647");
    expect(() => createServer(null, { headersTimeoutMs: 2 ** 31 })).toThrow("headersTimeoutMs must be at most 2147483647");
    expect(() => createServer(null, { keepAliveTimeoutMs: 2 ** 31 })).toThrow("keepAliveTimeoutMs must be at most 2147483647");
    expect(() => createServer(null, { readTimeoutMs: 2 ** 31 - 1 }).close()).not.toThrow();
  });
});
