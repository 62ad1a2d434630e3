// verify-stream.test.ts's tampered-documents agreement property (verify-stream-properties.ts) with
// 5- and 7-byte reads, which split every kind of token across reads. Heavy for the same reason as
// verify-stream.heavy.test.ts (the other three properties), and in a file of its own so that the two
// run on two cores at once (vitest.heavy.config.ts): this one alone takes about 50 s there.
import { describe } from "vitest";
import { verifyStreamProperties } from "./verify-stream-properties.js";

describe("verifyFiles streaming tampered documents in reads of a few bytes agrees with the verifier fed them from memory", () => {
  verifyStreamProperties([5, 7], ["tampered documents"]);
});
