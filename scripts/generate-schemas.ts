// Generates `schemas/*.schema.json` from the zod schemas, which stay the single source of
// truth. `renderSchemas()` is pure so a test can compare its output with the checked-in
// files; running this module as a script (`npm run schemas`, from the package root) writes
// them. JSON Schema cannot express every zod refinement (finite numbers, the overlap rule,
// own `__proto__` metadata keys, a v3 pipeline's rules version being null exactly when its structural filter is off); the zod schemas remain authoritative for those.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { INDEX_SCHEMA, IngestIndexSchema } from "../src/documents/ingest-index.js";
import { IngestPolicySchema } from "../src/documents/policy.js";
import { AllowFileSchema } from "../src/documents/allowlist.js";
import { BATCH_SCHEMA, BatchDocumentSchema, EXPORT_SCHEMA, IngestExportSchema, IngestManifestSchema, MANIFEST_SCHEMA } from "../src/documents/schemas.js";
import {
  EXPORT_SCHEMA_V2,
  EXPORT_SCHEMA_V3,
  IngestExportV2Schema,
  IngestExportV3Schema,
  IngestManifestV2Schema,
  IngestManifestV3Schema,
  MANIFEST_SCHEMA_V2,
  MANIFEST_SCHEMA_V3,
} from "../src/documents/manifest-v2.js";

/** A published file's `$id`: a URN of its schema name (the package records no web address). */
const schemaId = (title: string): string => `urn:little-canary:${title}`;

/**
 * Every published schema file. A published file is never changed in place (docs/compatibility.md,
 * schemas/published-vN.json): a new shape gets a new file and name. `id` is set for files published
 * since that rule; the files before it keep their bytes, so they have none.
 */
const DOCUMENTS: ReadonlyArray<{ file: string; title: string; schema: z.ZodType; id?: true }> = [
  { file: "ingest-manifest.schema.json", title: MANIFEST_SCHEMA, schema: IngestManifestSchema },
  { file: "ingest-export.schema.json", title: EXPORT_SCHEMA, schema: IngestExportSchema },
  { file: "ingest-manifest-v2.schema.json", title: MANIFEST_SCHEMA_V2, schema: IngestManifestV2Schema, id: true },
  { file: "ingest-export-v2.schema.json", title: EXPORT_SCHEMA_V2, schema: IngestExportV2Schema, id: true },
  { file: "ingest-manifest-v3.schema.json", title: MANIFEST_SCHEMA_V3, schema: IngestManifestV3Schema, id: true },
  { file: "ingest-export-v3.schema.json", title: EXPORT_SCHEMA_V3, schema: IngestExportV3Schema, id: true },
  { file: "batch.schema.json", title: BATCH_SCHEMA, schema: BatchDocumentSchema },
  { file: "ingest-index.schema.json", title: INDEX_SCHEMA, schema: IngestIndexSchema },
  { file: "ingest-policy.schema.json", title: "little-canary ingest policy (strict/v1)", schema: IngestPolicySchema },
  { file: "ingest-allowlist.schema.json", title: "little-canary ingest allowlist (ingest --allow)", schema: AllowFileSchema },
];

/** File name → pretty-printed JSON Schema text (with a trailing newline). */
export function renderSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { file, title, schema, id } of DOCUMENTS) {
    const json = { ...(id ? { $id: schemaId(title) } : {}), ...z.toJSONSchema(schema), title };
    out[file] = `${JSON.stringify(json, null, 2)}\n`;
  }
  return out;
}

/** Writes every rendered schema into `dir`; returns the paths written. */
export function writeSchemas(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(renderSchemas()).map(([file, text]) => {
    const path = join(dir, file);
    writeFileSync(path, text);
    return path;
  });
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  for (const path of writeSchemas(resolve(process.cwd(), "schemas"))) process.stdout.write(`wrote ${path}\n`);
}
