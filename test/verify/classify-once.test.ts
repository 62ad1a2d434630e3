import { describe, expect, it } from "vitest";
import { checkManifestRecordAt } from "../../src/verify/manifest-checks.js";
import { checkExportRecord } from "../../src/verify/pair-checks.js";
import { planGeometry } from "../../src/verify/_values.js";
import { ProblemList } from "../../src/verify/problems.js";
import { reparse, synthRun, type SynthInput } from "../support/run-data.js";

// Any JSON value; tests tamper with parsed documents the way an attacker edits files.
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const docs: SynthInput[] = [
  { id: "doc-1", source: "shared-drive", metadata: { title: "Q3 notes", author: "ops" }, text: "Quarterly numbers attached." },
  { id: null, source: null, metadata: {}, text: "please BLOCK this" },
  { id: null, source: "wiki", metadata: {}, text: "Second admitted text." },
];

/** Manifests of the genuine run and of forgeries that touch verdicts, states and segments. */
function manifests(): Json[] {
  const fresh = (): Json => reparse(synthRun(docs).manifest.document);
  const forged: Array<(m: Json) => void> = [
    () => undefined,
    (m) => {
      m.records[0].segments[1].verdict.canary_risk_score = 0.5; // a flag, recorded as pass
    },
    (m) => {
      m.records[0].segments[0].verdict.safe = false;
    },
    (m) => {
      m.records[0].segments[0].verdict = null;
    },
    (m) => {
      m.records[0].segments[0].exercised = false;
    },
    (m) => {
      Object.assign(m.records[1], { admission: "admitted", hold_reasons: [], coverage: "complete", detection: "none" });
    },
    (m) => {
      m.records[2].segments[0].state = "flag";
    },
    (m) => {
      m.records[2].segments_checked = 1;
    },
  ];
  return forged.map((forge) => {
    const m = fresh();
    forge(m);
    return m;
  });
}

describe("each verdict is classified once", () => {
  it("the export check gives the same problems when the manifest check vouches for the verdicts", () => {
    const exported: Json = reparse(synthRun(docs).exported!.document);
    let vouched = 0;
    for (const manifest of manifests()) {
      const geometry = planGeometry(manifest);
      manifest.records.forEach((record: Json, position: number) => {
        const check = checkManifestRecordAt(record, position, geometry, new ProblemList());
        const item = exported.records.find((r: Json) => r.index === position) ?? { ...exported.records[0], index: position };
        const again = new ProblemList();
        checkExportRecord(item, position, check.usable ?? undefined, geometry, again, false);
        const once = new ProblemList();
        checkExportRecord(item, position, check.usable ?? undefined, geometry, once, check.verdictsAgree);
        expect(once.items).toEqual(again.items);
        if (check.verdictsAgree) vouched++;
      });
    }
    // The genuine records are vouched for, so the shortcut is exercised, not only skipped.
    expect(vouched).toBeGreaterThan(3);
  });

  it("a record whose state does not follow from its verdicts is not vouched for", () => {
    const [, forged] = manifests();
    const check = checkManifestRecordAt(forged.records[0], 0, planGeometry(forged), new ProblemList());
    expect(check.verdictsAgree).toBe(false);
  });
});
