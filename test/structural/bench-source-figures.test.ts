// bench:structural's per-source figures (bench/_source-figures.ts): the leave-one-source-out
// target lines and the escaped excerpt of a false block. No corpora needed.
import { describe, expect, it } from "vitest";
import { EXCERPT_CODE_POINTS, excerpt, leaveOneOutLines } from "../../bench/_source-figures.js";

describe("leave-one-source-out lines", () => {
  it("prints a target_met line for the recall gain and for the benign ceiling", () => {
    const lines = leaveOneOutLines([
      { source: "/x/jailbreakbench_artifacts.jsonl", attacksBlocked: 500, attacks: 732, benignBlocked: 0, benign: 0 },
      { source: "/x/spikee_fp_benign.jsonl", attacksBlocked: 0, attacks: 0, benignBlocked: 2, benign: 112 },
    ]);
    expect(lines.find((l) => l.startsWith("loo_recall_gain="))).toMatch(/target_met=yes$/);
    expect(lines.find((l) => l.startsWith("benign_blocked_max="))).toMatch(/spikee_fp_benign\.jsonl\) target_met=no$/);
  });

  it("a source without a recorded baseline cannot meet the gain target", () => {
    const lines = leaveOneOutLines([{ source: "new.jsonl", attacksBlocked: 1, attacks: 1, benignBlocked: 0, benign: 5 }]);
    expect(lines.find((l) => l.startsWith("loo_recall_gain"))).toMatch(/target_met=no$/);
    expect(lines.find((l) => l.startsWith("benign_blocked_max="))).toMatch(/target_met=yes$/);
  });
});

describe("false-block excerpt", () => {
  it("shows at most 80 code points and marks what it cut", () => {
    const text = "😀".repeat(200);
    const shown = excerpt(text, 10);
    expect(shown.startsWith('…"')).toBe(true);
    expect(shown.endsWith('"…')).toBe(true);
    expect(Array.from(shown).length).toBe(EXCERPT_CODE_POINTS + 4);
  });

  it("escapes controls, bidi and zero-width characters, quotes and backslashes", () => {
    expect(excerpt('a\u202Eb\u200Bc\nd"\\')).toBe('"a\\u202eb\\u200bc\\u000ad\\"\\\\"');
  });
});
