import { describe, expect, it } from "vitest";
import { charsCovered, recordState, stopsChecking, type SegmentOutcome } from "../../src/documents/record-state.js";
import type { SegmentState } from "../../src/documents/schemas.js";
import { segmentSpans } from "../../src/documents/segment-spans.js";

function text(length: number, chars: number, overlap: number, outcomes: Array<[SegmentState, boolean]>): SegmentOutcome[] {
  return segmentSpans(length, chars, overlap).map((span, i) => {
    const [state, exercised] = outcomes[i] ?? ["pass", true];
    return { kind: "text", ...span, state, exercised };
  });
}

describe("recordState", () => {
  it("all exercised passes: admitted, complete, every code point covered once", () => {
    const segments = text(30, 10, 4, []);
    expect(segments).toHaveLength(5);
    expect(recordState(segments)).toEqual({
      detection: "none",
      coverage: "complete",
      hold_reasons: [],
      admission: "admitted",
      segments_checked: 5,
      chars_covered: 30,
    });
  });

  it("a risk-null pass leaves coverage partial and the record incomplete", () => {
    const state = recordState(
      text(20, 10, 0, [
        ["pass", true],
        ["pass", false],
      ]),
    );
    expect(state).toMatchObject({ coverage: "partial", hold_reasons: ["incomplete"], admission: "held", chars_covered: 10, segments_checked: 1 });
  });

  it("a block in the first of three segments with the rest not checked", () => {
    const state = recordState(
      text(30, 10, 0, [
        ["block", true],
        ["not_checked", false],
        ["not_checked", false],
      ]),
    );
    expect(state).toMatchObject({ detection: "block", coverage: "partial", hold_reasons: ["blocked", "incomplete"] });
  });

  it("a structural block that skipped the canary has coverage none", () => {
    expect(recordState(text(5, 10, 0, [["block", false]]))).toMatchObject({ detection: "block", coverage: "none", hold_reasons: ["blocked", "incomplete"] });
  });

  it("a canary block covering everything is blocked but complete", () => {
    expect(recordState(text(5, 10, 0, [["block", true]]))).toMatchObject({ coverage: "complete", hold_reasons: ["blocked"] });
  });

  it("lists reasons in the fixed order whatever the segment order", () => {
    const state = recordState(
      text(60, 10, 0, [
        ["error", false],
        ["unexercised", false],
        ["degraded", false],
        ["flag", true],
        ["block", true],
        ["not_checked", false],
      ]),
    );
    expect(state.hold_reasons).toEqual(["blocked", "flagged", "degraded", "unexercised", "error", "incomplete"]);
    expect(state.detection).toBe("block");
  });

  it("a flag gives detection flag; DEGRADE/NOANALYSIS/raise each hold as incomplete", () => {
    expect(recordState(text(5, 10, 0, [["flag", true]]))).toMatchObject({ detection: "flag", hold_reasons: ["flagged"], coverage: "complete" });
    expect(recordState(text(5, 10, 0, [["degraded", false]])).hold_reasons).toEqual(["degraded", "incomplete"]);
    expect(recordState(text(5, 10, 0, [["unexercised", false]])).hold_reasons).toEqual(["unexercised", "incomplete"]);
    expect(recordState(text(5, 10, 0, [["error", false]])).hold_reasons).toEqual(["error", "incomplete"]);
  });

  it("no segments means coverage none", () => {
    expect(recordState([])).toMatchObject({ coverage: "none", hold_reasons: ["incomplete"], admission: "held" });
  });
});

describe("charsCovered", () => {
  it("counts overlapping exercised spans once and kinds separately", () => {
    const segments: SegmentOutcome[] = [
      { kind: "metadata", start: 0, end: 10, state: "pass", exercised: true },
      { kind: "text", start: 0, end: 10, state: "pass", exercised: true },
      { kind: "text", start: 7, end: 12, state: "pass", exercised: true },
    ];
    expect(charsCovered(segments)).toBe(22);
  });

  it("counts what an exercised segment inspected even when its neighbour was not exercised", () => {
    expect(
      charsCovered(
        text(17, 10, 3, [
          ["pass", true],
          ["pass", false],
        ]),
      ),
    ).toBe(10);
  });
});

describe("stopsChecking", () => {
  it("block, flag, degraded, unexercised and error stop checking; pass does not", () => {
    expect((["block", "flag", "degraded", "unexercised", "error"] as const).every(stopsChecking)).toBe(true);
    expect(stopsChecking("pass")).toBe(false);
    expect(stopsChecking("not_checked")).toBe(false);
  });
});
