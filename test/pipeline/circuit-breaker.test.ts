import { describe, expect, it } from "vitest";
import { CanaryCircuitBreaker, DEFAULT_MAX_CANARY_FAILURES, observeCanary } from "../../src/pipeline/circuit-breaker.js";
import type { VerdictJson } from "../../src/documents/verdict-schema.js";

const outage = { kind: "outage", reason: "unavailable" } as const;
const timeout = { kind: "outage", reason: "timeout" } as const;

describe("CanaryCircuitBreaker", () => {
  it("opens after N consecutive outages, naming the last reason", () => {
    const breaker = new CanaryCircuitBreaker(3);
    breaker.record(outage);
    breaker.record(outage);
    expect(breaker.open).toBe(false);
    breaker.record(timeout);
    expect(breaker.open).toBe(true);
    expect(breaker.trip).toEqual({ reason: "timeout", failures: 3, answeredBefore: 0 });
    // Once open it stays open.
    breaker.record({ kind: "answered" });
    expect(breaker.open).toBe(true);
  });

  it("tells its listener once, when it opens, with the trip", () => {
    const heard: unknown[] = [];
    const breaker = new CanaryCircuitBreaker(2, (trip) => heard.push(trip));
    breaker.record({ kind: "answered" });
    breaker.record(outage);
    expect(heard).toEqual([]);
    breaker.record(timeout);
    breaker.record(timeout);
    expect(heard).toEqual([{ reason: "timeout", failures: 2, answeredBefore: 1 }]);
  });

  it("a canary answer resets the count; a check that did not call the canary does not", () => {
    const breaker = new CanaryCircuitBreaker(2);
    breaker.record(outage);
    breaker.record({ kind: "answered" });
    breaker.record(outage);
    expect(breaker.open).toBe(false);
    breaker.record({ kind: "not_called" });
    breaker.record(outage);
    expect(breaker.open).toBe(true);
  });

  it("threshold 0 never opens; the default is documented as 5", () => {
    const breaker = new CanaryCircuitBreaker(0);
    for (let i = 0; i < 100; i++) breaker.record(outage);
    expect(breaker.open).toBe(false);
    expect(DEFAULT_MAX_CANARY_FAILURES).toBe(5);
    expect(() => new CanaryCircuitBreaker(-1)).toThrow(RangeError);
  });

  it("observeCanary reads only the canary layer's status and coverage reason", () => {
    const verdict = (layer: Record<string, unknown> | null) =>
      ({ layers: layer === null ? [] : [{ name: "canary_probe", passed: null, latency: 0, details: "", ...layer }] }) as unknown as VerdictJson;
    expect(observeCanary(verdict({ status: "failed", coverage_reason: "unavailable" }))).toEqual(outage);
    expect(observeCanary(verdict({ status: "failed", coverage_reason: "timeout" }))).toEqual(timeout);
    expect(observeCanary(verdict({ status: "failed", coverage_reason: "http_error" }))).toEqual({ kind: "answered" });
    expect(observeCanary(verdict({ status: "passed" }))).toEqual({ kind: "answered" });
    expect(observeCanary(verdict({ status: "skipped" }))).toEqual({ kind: "not_called" });
    expect(observeCanary(verdict(null))).toEqual({ kind: "not_called" });
  });
});
