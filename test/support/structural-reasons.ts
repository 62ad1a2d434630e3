// What the structural layer says of a text in a test: the reasons it held the text for, or none.
import { StructuralFilter } from "../../src/structural/filter.js";

const filter = new StructuralFilter();

/** The reasons the default structural filter holds `text` for; empty when it passes. */
export function heldFor(text: string): readonly string[] {
  const result = filter.check(text);
  return result.blocked ? result.reasons : [];
}
