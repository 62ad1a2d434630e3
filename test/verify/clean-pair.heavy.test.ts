// Every one-byte change of every record of the clean-pair inputs (clean-pair-sweep.ts), under
// one window and several windows per material, v2 and v3: what the clean-pair reading accepts is
// canonical and has no problem verified whole.
import { describe, expect, it } from "vitest";
import { INPUTS, sweepOneByteChanges } from "./clean-pair-sweep.js";

describe("clean pairs read from their bytes, every one-byte change", () => {
  for (const version of [2, 3] as const) {
    for (const small of [false, true]) {
      it(`v${version}, ${small ? "several windows" : "one window"} per material: accepted changes are canonical and clean verified whole`, () => {
        const { accepted, refused } = sweepOneByteChanges(INPUTS, version, small);
        expect(accepted).toBeGreaterThan(50);
        expect(refused).toBeGreaterThan(accepted * 10);
      }, 300_000);
    }
  }
});
