// semantic_discontinuity reads words of any script, with the analyzer's thresholds.
import { describe, expect, test } from "vitest";
import { analyzeResponse } from "../support/analyze-response.js";
import { contentWords } from "../../src/analysis/discontinuity.js";

const flagged = (input: string, reply: string): boolean => analyzeResponse(input, reply).signals.some((s) => s.category === "semantic_discontinuity");

describe("content words", () => {
  test("letters of any script, at least four, lowercased, stop words removed", () => {
    expect([...contentWords("Über Straße ÉCOLE этот кошка with about cat")].sort()).toEqual(["straße", "école", "этот", "кошка", "über"].sort());
  });

  test("combining marks stay inside a word", () => {
    expect([...contentWords("नमस्ते दुनिया")]).toEqual(["नमस्ते", "दुनिया"]);
  });
});

describe("discontinuity", () => {
  test("a Russian question answered on topic is not flagged; a non-ASCII ASCII-blind rule would see no words", () => {
    const input = "Как приготовить вкусную пасту дома сегодня?";
    const reply = "Чтобы приготовить вкусную пасту, вскипятите воду, посолите её и варите пасту девять минут.";
    expect(flagged(input, reply)).toBe(false);
  });

  test("a Russian question answered off topic is flagged (an ASCII-only rule finds no words and stays silent)", () => {
    const input = "Как приготовить вкусную пасту дома сегодня?";
    const reply = "Квантовая механика описывает частицы волновыми функциями, амплитудами вероятностей, операторами.";
    expect(flagged(input, reply)).toBe(true);
  });

  test("fewer than three input content words or five reply content words: not checked", () => {
    expect(flagged("is it on or off", "Quantum entanglement links particles across enormous distances instantly.")).toBe(false);
    expect(flagged("How long should I boil fresh pasta noodles?", "Quantum entanglement, really.")).toBe(false);
  });

  test("one shared word is enough to pass", () => {
    expect(flagged("How long should I boil fresh pasta noodles?", "Quantum entanglement links particles; also boil them briefly.")).toBe(false);
  });

  test("evidence carries counts only, never words of the input", () => {
    const signal = analyzeResponse("How long should I boil fresh pasta noodles?", "Quantum entanglement links particles across enormous distances instantly.")
      .signals[0];
    expect(signal?.evidence).not.toMatch(/pasta|noodles/);
  });
});
