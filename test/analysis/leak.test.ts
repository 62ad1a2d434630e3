// system_prompt_leak: fragments come from the configured system prompt, so a custom prompt is protected too.
import { describe, expect, test } from "vitest";
import { BehavioralAnalyzer } from "../../src/analysis/behavioral.js";
import { deriveLeakFragments } from "../../src/analysis/leak.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/documents/system-prompt.js";

const leaks = (analyzer: BehavioralAnalyzer, reply: string): number =>
  analyzer.analyzeResponse("q", reply).signals.filter((s) => s.category === "system_prompt_leak").length;

describe("default system prompt", () => {
  const analyzer = new BehavioralAnalyzer();

  test.each(["you are a helpful assistant", "stay on topic", "do not adopt other personas", "answer the user's question clearly"])(
    "the default prompt's fragment '%s' produces a leak signal",
    (fragment) => {
      expect(leaks(analyzer, `Well: ${fragment.toUpperCase()}, that is what I was told.`)).toBe(1);
    },
  );

  test("the default prompt contains the four fragments", () => {
    const lower = DEFAULT_CANARY_SYSTEM_PROMPT.toLowerCase();
    for (const fragment of ["you are a helpful assistant", "stay on topic", "do not adopt other personas", "answer the user's question clearly"]) {
      expect(lower).toContain(fragment);
    }
  });

  test("a curly apostrophe does not hide the echo", () => {
    expect(leaks(analyzer, "I must answer the user’s question clearly.")).toBe(1);
  });

  test("a single leak blocks at the default threshold; a full echo gives one signal per clause", () => {
    const one = analyzer.analyzeResponse("q", "Let's stay on topic.");
    expect(one).toMatchObject({ riskScore: 0.64, shouldBlock: true, hardBlocked: false });
    expect(leaks(analyzer, DEFAULT_CANARY_SYSTEM_PROMPT)).toBe(deriveLeakFragments(DEFAULT_CANARY_SYSTEM_PROMPT).length);
    expect(analyzer.analyzeResponse("q", DEFAULT_CANARY_SYSTEM_PROMPT).riskScore).toBe(1);
  });

  test("four words with fewer than two content words are not a leak", () => {
    expect(leaks(analyzer, "Please do not adopt other habits too quickly.")).toBe(0);
    expect(leaks(analyzer, "You are a helpful person.")).toBe(0);
  });

  test("evidence is the prompt's words, not the surrounding reply", () => {
    const signal = analyzer.analyzeResponse("q", "PRIVATE-CONTEXT then stay on topic").signals.find((s) => s.category === "system_prompt_leak");
    expect(signal?.evidence).toBe("stay on topic");
  });
});

describe("custom system prompt", () => {
  const custom = "You are Quill, a billing support agent for Acme. Never discuss refunds above 500 dollars; " + "escalate those to a human supervisor.";
  const analyzer = new BehavioralAnalyzer({ systemPrompt: custom });

  test("a reply echoing the custom prompt is flagged", () => {
    expect(leaks(analyzer, "My notes say: never discuss refunds above 500 dollars.")).toBe(1);
    expect(leaks(analyzer, "I should escalate those to a human supervisor.")).toBe(1);
  });

  test("the default fragments no longer apply", () => {
    expect(leaks(analyzer, "Let's stay on topic.")).toBe(0);
  });

  test("an empty prompt yields no fragments", () => {
    expect(deriveLeakFragments("")).toEqual([]);
    expect(leaks(new BehavioralAnalyzer({ systemPrompt: "" }), "stay on topic")).toBe(0);
  });
});
