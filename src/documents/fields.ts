// The zod fields every document schema shares, defined once so a count or a digest means the
// same in the manifest, the export, the batch document, the shard record and the index.
import { z } from "zod";

/** A count: a whole number, 0 or more. */
export const count = z.int().min(0);
/** A SHA-256 as documents write it: 64 lowercase hex digits. */
export const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256");
