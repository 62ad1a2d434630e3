// The body rules of `POST /screen` (docs/serve.md), as a pure function: the batch's bytes, read
// by the one strict reader (no byte order mark, strict UTF-8, no duplicate key at any depth), as
// `{"items": [...]}`, each item what `screen` reads in a line (a string, or an object with `text`
// and optional `id`, `source`, `metadata`), admitted all-or-nothing by the one in-memory
// admission of `screen` (src/screen/admit.ts) with `screen`'s default limits. Replies name the
// rule, never the text.
import { readStrictDocument } from "../core/strict-document.js";
import { isPlainObject } from "../core/guards.js";
import { admitScreenInputs, BatchRefusedError, type ScreenInput } from "../screen/admit.js";
import { errorReply, REPLIES, type Reply } from "./json-reply.js";
import { bodyLimit } from "./check-request.js";

/**
 * Largest `/screen` request body (1 MiB). The service holds a body in memory until it is
 * screened, once per connection, so this is well below `screen`'s 8 MiB total for a file.
 */
export const MAX_SCREEN_REQUEST_BYTES = 1_048_576;

/** `/screen`'s body limit and its 413 reply. */
export const SCREEN_BODY_LIMIT = bodyLimit(MAX_SCREEN_REQUEST_BYTES);

/** Batch refusals that are about size: 413, as a body over the limit is. */
const SIZE_REASONS: ReadonlySet<string> = new Set(["too_many_items", "total_bytes"]);

/**
 * The inputs of a `/screen` body, once they passed `screen`'s admission (so a refusal costs no
 * check slot), or the reply that refuses it. `screenBatch` admits them again by the same rules.
 */
export function parseScreenBody(bytes: Uint8Array): { readonly inputs: readonly ScreenInput[] } | Reply {
  const read = readStrictDocument(bytes);
  if (!read.ok)
    return read.code === "malformed_json" || read.code === "invalid_utf8" ? REPLIES.malformedJson : errorReply(400, `malformed JSON: ${read.message}`);
  if (!isPlainObject(read.value)) return REPLIES.notAnObject;
  // Lengths are code points; an escaped lone surrogate has no code point to count (as /check).
  if (read.loneSurrogate) return REPLIES.textNotWellFormed;
  if (!Object.hasOwn(read.value, "items")) return errorReply(400, "items is required");
  const inputs = read.value["items"];
  if (!Array.isArray(inputs)) return errorReply(400, "items must be an array");
  if (inputs.length === 0) return errorReply(400, "items must not be empty");
  try {
    admitScreenInputs(inputs);
  } catch (error) {
    if (!(error instanceof BatchRefusedError)) throw error;
    const status = SIZE_REASONS.has(error.reason) ? 413 : 400;
    return { status, body: { error: error.message, reason: error.reason } };
  }
  return { inputs: inputs as ScreenInput[] };
}
