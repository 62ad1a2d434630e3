import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderSchemas } from "../../scripts/generate-schemas.js";

describe("checked-in JSON Schemas", () => {
  it("match what the zod schemas generate", () => {
    const rendered = renderSchemas();
    expect(Object.keys(rendered).sort()).toEqual([
      "batch.schema.json",
      "ingest-allowlist.schema.json",
      "ingest-export-v2.schema.json",
      "ingest-export-v3.schema.json",
      "ingest-export.schema.json",
      "ingest-index.schema.json",
      "ingest-manifest-v2.schema.json",
      "ingest-manifest-v3.schema.json",
      "ingest-manifest.schema.json",
      "ingest-policy.schema.json",
    ]);
    for (const [file, text] of Object.entries(rendered)) {
      const onDisk = readFileSync(new URL(`../../schemas/${file}`, import.meta.url), "utf8");
      expect(onDisk, `schemas/${file} is stale: run \`npm run schemas\``).toBe(text);
    }
  });

  it("are strict about unknown keys", () => {
    const manifest = JSON.parse(renderSchemas()["ingest-manifest.schema.json"]!);
    expect(manifest.additionalProperties).toBe(false);
    expect(manifest.properties.records.items.properties.segments.items.additionalProperties).toBe(false);
    const v2 = JSON.parse(renderSchemas()["ingest-manifest-v2.schema.json"]!);
    expect(v2.additionalProperties).toBe(false);
    expect(v2.properties.records.items.additionalProperties).toBe(false);
    expect(v2.properties.records.items.properties.segments.items.additionalProperties).toBe(false);
    expect(v2.properties.records.items.properties).not.toHaveProperty("index");
  });
});
