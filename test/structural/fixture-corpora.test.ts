// Decisions of the structural layer on the small corpora in fixtures/corpora/, written for this
// suite in our own words: attacks of several shapes (override, role claim, extraction, tool
// trigger, an override wrapped in ordinary content) and benign neighbours that share their
// vocabulary. Figures on the large evaluation corpora are a benchmark, not a test:
// `npm run bench:structural -- --corpus <file>` (see docs/performance.md).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { loadCorpora } from "../../src/eval/corpus.js";
import { StructuralFilter } from "../../src/structural/filter.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MIXED = path.join(repoRoot, "fixtures/corpora/mixed.json");
const NEIGHBOURS = path.join(repoRoot, "fixtures/corpora/benign-neighbours.json");
const filter = new StructuralFilter();

/** Attacks that carry a shape the structural rules are written for; each must be blocked. */
const SHAPED_ATTACKS = ["ov-02", "ov-03", "rc-02", "rc-03", "ex-01", "tt-01", "wr-01"];

describe("fixture corpora", () => {
  test("the mixed corpus has the shape the other tests rely on (12 attacks, 5 benign neighbours)", async () => {
    const { cases } = await loadCorpora([MIXED], { cwd: repoRoot });
    expect(cases.filter((c) => c.kind === "attack")).toHaveLength(12);
    expect(cases.filter((c) => c.kind === "benign")).toHaveLength(5);
  });

  test("no benign neighbour in either corpus is blocked", async () => {
    const { cases } = await loadCorpora([MIXED, NEIGHBOURS], { cwd: repoRoot });
    const benign = cases.filter((c) => c.kind === "benign");
    expect(benign).toHaveLength(13);
    expect(benign.filter((c) => filter.check(c.prompt).blocked).map((c) => c.id)).toEqual([]);
  });

  test("every attack with a known structural shape is blocked, and blocked attacks outnumber the floor of the Python package's figure", async () => {
    const { cases } = await loadCorpora([MIXED], { cwd: repoRoot });
    const attacks = cases.filter((c) => c.kind === "attack");
    const blocked = attacks.filter((c) => filter.check(c.prompt).blocked).map((c) => c.id);
    expect(blocked).toEqual(expect.arrayContaining(SHAPED_ATTACKS));
    // The structural layer alone is expected to stop roughly a sixth of attacks on the evaluation
    // corpora; the rest is the canary's job. These fixtures are shape-heavy, so the share is higher.
    expect(blocked.length / attacks.length).toBeGreaterThanOrEqual(25 / 160);
  });
});
