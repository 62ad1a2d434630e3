// verify-stream.test.ts's agreement properties (verify-stream-properties.ts) with 5- and 7-byte reads,
// which split every kind of token across reads. Heavy: a read per few bytes makes each pair cost
// about ten times what the larger reads of the normal suite do (about 30 s for the file).
import { describe } from "vitest";
import { verifyStreamProperties } from "./verify-stream-properties.js";

describe("verifyFiles streaming the files in reads of a few bytes agrees with the verifier fed the documents from memory", () => {
  verifyStreamProperties([5, 7]);
});
